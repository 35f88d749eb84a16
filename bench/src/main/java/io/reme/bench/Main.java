package io.reme.bench;

import io.reme.cluster.ClusterCommand;
import io.reme.config.ConfigException;
import io.reme.eval.EvalCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code reme-bench.jar}: the benchmarks and the search evaluation, apart from the product jar. */
@Command(
        name = "reme-bench",
        mixinStandardHelpOptions = true,
        version = "ReMe Streams benchmarks 0.1.0",
        description = "Benchmarks and evaluation of ReMe Streams.",
        subcommands = {BenchCommand.class, EvalCommand.class, ClusterCommand.class})
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
