package io.reme.cli;

import io.reme.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code reme-streams.jar}. */
@Command(
        name = "reme-streams",
        mixinStandardHelpOptions = true,
        version = "ReMe Streams 0.1.0",
        description = "Memory for AI agents as a Kafka Streams pipeline.",
        subcommands = {RunCommand.class, DemoCommand.class, WorkersCommand.class, ReplayDlqCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof ConfigException config) {
                commandLine.getErr().println(config.getMessage());
                return 2;
            }
            throw e;
        });
        System.exit(cli.execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
