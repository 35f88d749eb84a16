package io.reme.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cluster start|stop|status --data-dir DIR}: a real cluster on this machine, every part its own
 * process, started and stopped by one command each (see {@code docker/local-cluster.md}).
 */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description = "A three-node Kafka cluster with SASL and ACLs, Connect in distributed mode, application "
                + "instances and workers, each its own process under --data-dir.",
        subcommands = {ClusterCommand.Start.class, ClusterCommand.Stop.class, ClusterCommand.Status.class})
public final class ClusterCommand implements Runnable {
    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = "Start what is not running; return when all of it answers.")
    static final class Start implements Callable<Integer> {
        @Option(
                names = "--data-dir",
                required = true,
                description = "The cluster's directory: ports, secrets, data, logs.")
        Path dir;

        @Option(
                names = "--instances",
                defaultValue = "2",
                description = "Application instances (default ${DEFAULT-VALUE}).")
        int instances;

        @Option(
                names = "--no-connect",
                negatable = true,
                defaultValue = "true",
                description = "Run the Connect worker with the file sinks.")
        boolean connect;

        @Option(
                names = "--no-workers",
                negatable = true,
                defaultValue = "true",
                description = "Run the separate workers process.")
        boolean workers;

        @Option(
                names = "--app-jar",
                defaultValue = "application/target/reme-streams-app.jar",
                description = "The application jar (default ${DEFAULT-VALUE}, from the repository root).")
        Path appJar;

        @Option(
                names = "--timeout",
                defaultValue = "PT5M",
                description = "How long to wait for everything (default ${DEFAULT-VALUE}).")
        Duration timeout;

        @Override
        public Integer call() {
            LocalCluster cluster = LocalCluster.in(
                            dir, new LocalCluster.Options(instances, connect, workers, appJar, true, Map.of()))
                    .start(timeout);
            describe(cluster.spec(), instances);
            return 0;
        }
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description = "Stop every process this directory's cluster started.")
    static final class Stop implements Callable<Integer> {
        @Option(names = "--data-dir", required = true)
        Path dir;

        @Override
        public Integer call() {
            LocalCluster.stop(dir);
            System.out.println("STOPPED " + dir.toAbsolutePath().normalize());
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Which processes of the cluster run.")
    static final class Status implements Callable<Integer> {
        @Option(names = "--data-dir", required = true)
        Path dir;

        @Override
        public Integer call() {
            LocalCluster cluster = LocalCluster.existing(dir);
            ClusterSpec spec = cluster.spec();
            int running = 0;
            for (ChildProcess process : cluster.processes()) {
                boolean alive = process.isAlive();
                running += alive ? 1 : 0;
                System.out.println(process.name() + " "
                        + (alive
                                ? "running pid="
                                        + process.handle().orElseThrow().pid()
                                : "stopped") + " log=" + process.log());
            }
            describe(spec, spec.appPorts().size());
            return running == 0 ? 3 : 0;
        }
    }

    private static void describe(ClusterSpec spec, int instances) {
        System.out.println("bootstrap " + spec.bootstrapServers() + " (SASL_PLAINTEXT, SCRAM-SHA-512; passwords in "
                + spec.dir().resolve(ClusterSpec.FILE) + ")");
        for (int i = 1; i <= instances; i++) {
            System.out.println("app-" + i + " " + spec.appUrl(i) + " (tenant " + spec.tenant() + ", key in "
                    + ClusterSpec.FILE + ")");
        }
        System.out.println("connect " + spec.connectUrl());
        System.out.println("READY " + spec.dir());
    }
}
