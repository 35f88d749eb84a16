package io.reme.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One KRaft node (broker and controller in one process) run by Kafka's own {@code kafka.Kafka} main
 * with a {@code server.properties}, as Kafka's start script runs it: its data under
 * {@code <dir>/node-N/data}, its output in {@code <dir>/node-N/server.log}.
 *
 * <p>Every listener authenticates: clients and brokers with SASL/SCRAM-SHA-512 on {@code BROKER}, the
 * quorum with SASL/PLAIN on {@code CONTROLLER} (SCRAM credentials live in the metadata log, which a
 * controller must read before it could check them). {@code StandardAuthorizer} with no access where
 * no ACL grants it; {@code admin} is the only super user. Every topic defaults to replication 3 and
 * {@code min.insync.replicas} 2, the offsets and transaction logs too.
 */
public final class KafkaNode {
    static final String SERVER_MAIN = "kafka.Kafka";
    static final String STORAGE_TOOL = "kafka.tools.StorageTool";

    private final ClusterSpec spec;
    private final int id;
    private final Path home;
    private final ChildProcess process;

    KafkaNode(ClusterSpec spec, int id) {
        this.spec = spec;
        this.id = id;
        this.home = spec.dir().resolve("node-" + id);
        this.process = new ChildProcess(
                "node-" + id,
                home.resolve("pid"),
                home.resolve("server.log"),
                spec.dir().toString());
    }

    public int id() {
        return id;
    }

    public ChildProcess process() {
        return process;
    }

    public Path dataDir() {
        return home.resolve("data");
    }

    /** Writes the properties, formats the storage if it is new (with every principal's SCRAM credential), starts. */
    void start(Launcher launcher, boolean detached) {
        Path properties = writeProperties();
        if (!Files.isRegularFile(dataDir().resolve("meta.properties"))) {
            format(launcher, properties);
        }
        process.start(launcher.javaCommand(serverHeap(), SERVER_MAIN, properties.toString()), Map.of(), detached);
    }

    /** SIGKILL of the node's process. */
    public void kill() {
        process.kill();
    }

    /** Deletes the node's data directory (it must not be running): the next start formats it anew and re-replicates. */
    public void wipe() {
        if (process.isAlive()) {
            throw new IllegalStateException("node-" + id + " is running; kill it before wiping its data");
        }
        if (!Files.isDirectory(dataDir())) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dataDir())) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not wipe " + dataDir(), e);
        }
    }

    private static String serverHeap() {
        return "-Xmx512m";
    }

    private void format(Launcher launcher, Path properties) {
        List<String> arguments =
                new ArrayList<>(List.of("format", "--cluster-id", spec.clusterId(), "--config", properties.toString()));
        for (String principal : ClusterSpec.PRINCIPALS) {
            arguments.add("--add-scram");
            arguments.add("SCRAM-SHA-512=[name=" + principal + ",password=" + spec.password(principal) + "]");
        }
        List<String> command = launcher.javaCommand("-Xmx256m", STORAGE_TOOL, arguments.toArray(String[]::new));
        try {
            Files.createDirectories(home);
            Process format = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            home.resolve("format.log").toFile()))
                    .start();
            if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
                format.destroyForcibly();
                throw new IllegalStateException("formatting node-" + id + " failed; see " + home.resolve("format.log"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not format node-" + id, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while formatting node-" + id, e);
        }
    }

    private Path writeProperties() {
        return PropertiesFile.write(
                home.resolve("server.properties"),
                "node-" + id + " of the local cluster in " + spec.dir() + "; written at every start",
                properties());
    }

    Map<String, String> properties() {
        String host = ClusterSpec.HOST;
        List<String> voters = new ArrayList<>();
        for (int node = 1; node <= spec.nodes(); node++) {
            voters.add(node + "@" + host + ":" + spec.controllerPorts().get(node - 1));
        }
        String adminPassword = spec.password("admin");
        Map<String, String> props = new LinkedHashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", Integer.toString(id));
        props.put("controller.quorum.voters", String.join(",", voters));
        props.put("controller.listener.names", "CONTROLLER");
        props.put(
                "listeners",
                "BROKER://" + host + ":" + spec.brokerPorts().get(id - 1) + ",CONTROLLER://" + host + ":"
                        + spec.controllerPorts().get(id - 1));
        props.put(
                "advertised.listeners",
                "BROKER://" + host + ":" + spec.brokerPorts().get(id - 1));
        props.put("inter.broker.listener.name", "BROKER");
        props.put("listener.security.protocol.map", "BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        props.put("listener.name.broker.sasl.enabled.mechanisms", "SCRAM-SHA-512");
        props.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        props.put(
                "listener.name.broker.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\""
                        + adminPassword + "\";");
        props.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        props.put("sasl.mechanism.controller.protocol", "PLAIN");
        props.put(
                "listener.name.controller.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\""
                        + adminPassword + "\" user_admin=\"" + adminPassword + "\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:admin");
        props.put("allow.everyone.if.no.acl.found", "false");
        props.put("log.dirs", dataDir().toString());

        // Topics are created on purpose, by the application or an operator, never by a typo.
        props.put("auto.create.topics.enable", "false");
        props.put("default.replication.factor", "3");
        props.put("min.insync.replicas", "2");
        props.put("unclean.leader.election.enable", "false");
        props.put("offsets.topic.replication.factor", "3");
        props.put("transaction.state.log.replication.factor", "3");
        props.put("transaction.state.log.min.isr", "2");
        props.put("share.coordinator.state.topic.replication.factor", "3");
        props.put("share.coordinator.state.topic.min.isr", "2");
        // Fewer coordinator partitions than the defaults (50): three nodes on two cores start and
        // elect faster, and a handful of groups and producers need no more.
        props.put("offsets.topic.num.partitions", "12");
        props.put("transaction.state.log.num.partitions", "12");
        props.put("share.coordinator.state.topic.num.partitions", "3");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("log.cleaner.dedupe.buffer.size", Integer.toString(32 * 1024 * 1024));
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "4");
        props.put("num.replica.fetchers", "1");
        return props;
    }
}
