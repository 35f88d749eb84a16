package io.reme.cli;

import io.reme.app.RemeApp;
import io.reme.config.AppConfig;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code run}: start the system and serve until Ctrl-C. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = "Start the pipeline and the HTTP API (embedded broker unless --bootstrap-servers).")
final class RunCommand implements Callable<Integer> {
    @Mixin
    CommonOptions options;

    @Override
    public Integer call() throws InterruptedException {
        AppConfig config = options.load(Map.of());
        RemeApp app = RemeApp.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        ShutdownHook.install(app::close, stopped);
        printBanner(app, System.out);
        stopped.await();
        return 0;
    }

    /** What a newcomer needs to talk to the running system; the last line is the READY contract. */
    static void printBanner(RemeApp app, PrintStream out) {
        AppConfig config = app.config();
        out.println("ReMe Streams");
        out.println("  kafka      " + app.bootstrapServers()
                + (config.embeddedBroker()
                        ? "  (embedded broker, data in " + config.dataDir().resolve("kafka") + ")"
                        : ""));
        out.println("  topics     " + config.topics().messages() + " (input), "
                + config.topics().llmRequests() + ", "
                + config.topics().llmResults() + ", " + config.topics().dialog() + ", "
                + config.topics().toolResults()
                + ", " + config.topics().dlq());
        out.println("  state      " + config.dataDir().resolve("streams"));
        out.println("  files      " + config.workspaceDir()
                + (config.sinksEmbedded()
                        ? "  (written by the in-process file sinks)"
                        : "  (written by the file sinks of a Connect cluster)"));
        if (app.generatedApiKey() != null) {
            out.println("  tenant     " + RemeApp.DEFAULT_TENANT + ", API key " + app.generatedApiKey() + "  (also in "
                    + config.dataDir().resolve("api-key") + ")");
        }
        out.println("READY " + app.httpUrl());
        out.flush();
    }
}
