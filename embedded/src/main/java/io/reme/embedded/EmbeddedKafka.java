package io.reme.embedded;

import io.reme.local.LocalBroker;
import io.reme.workspace.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a single-node KRaft Kafka broker and controller inside this JVM, bound to loopback ports that survive restarts. */
public final class EmbeddedKafka implements LocalBroker {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    private static final String HOST = "127.0.0.1";
    private static final int NODE_ID = 1;
    private static final String BROKER_LISTENER = "PLAINTEXT";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final String PORTS_FILE = "ports.properties";
    private static final String BROKER_PORT_KEY = "broker.port";
    private static final String CONTROLLER_PORT_KEY = "controller.port";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    // Headroom above the 16 MiB records the pipeline may write; batch framing needs a little extra.
    private static final int MAX_MESSAGE_BYTES = 20 * 1024 * 1024;

    // Overriding any of these would desynchronise the listeners, the persisted ports or the formatted storage.
    private static final Set<String> MANAGED_KEYS = Set.of(
            "process.roles",
            "node.id",
            "broker.id",
            "controller.quorum.voters",
            "controller.quorum.bootstrap.servers",
            "controller.listener.names",
            "listeners",
            "advertised.listeners",
            "inter.broker.listener.name",
            "listener.security.protocol.map",
            "log.dir",
            "log.dirs",
            "metadata.log.dir");

    private final Path dataDir;
    private final String bootstrapServers;
    private final KafkaRaftServer server;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedKafka(Path dataDir, String bootstrapServers, KafkaRaftServer server) {
        this.dataDir = dataDir;
        this.bootstrapServers = bootstrapServers;
        this.server = server;
    }

    /** Starts a broker whose state lives under {@code dataDir/kafka}, formatting it on first use. */
    public static EmbeddedKafka start(Path dataDir) {
        return start(dataDir, Map.of());
    }

    /**
     * Starts a broker whose state lives under {@code dataDir/kafka}, formatting it on first use.
     *
     * @param overrides broker settings applied over the defaults; listener, quorum, role and directory keys are
     *                  managed here and rejected
     * @throws IllegalArgumentException if an override touches a managed key
     * @throws IllegalStateException    if a persisted port is taken or the broker fails to come up in time
     */
    public static EmbeddedKafka start(Path dataDir, Map<String, String> overrides) {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(overrides, "overrides");
        Set<String> managed = new TreeSet<>(overrides.keySet());
        managed.retainAll(MANAGED_KEYS);
        if (!managed.isEmpty()) {
            throw new IllegalArgumentException("EmbeddedKafka manages these settings itself: " + managed);
        }

        long startedAt = System.nanoTime();
        Path kafkaDir = dataDir.toAbsolutePath().resolve("kafka");
        Path logDir = kafkaDir.resolve("logs");
        if (logDir.toString().contains(",")) {
            // log.dirs is a comma-separated list, so such a path would silently become two directories.
            throw new IllegalArgumentException("EmbeddedKafka data directory must not contain a comma: " + dataDir);
        }
        // Tenants' messages live here: only the owner may enter (see PrivateFiles for what this covers).
        tighten(kafkaDir);
        createDirectories(logDir);

        Path portsFile = kafkaDir.resolve(PORTS_FILE);
        Ports ports = Files.exists(portsFile) ? Ports.load(portsFile) : Ports.allocate(portsFile);
        // Kafka reports a taken port only as a generic acceptor failure halfway through startup; say it plainly first.
        ensureFree(ports.broker, "broker", portsFile);
        ensureFree(ports.controller, "controller", portsFile);

        KafkaConfig config = new KafkaConfig(brokerConfig(logDir, ports, overrides), false);
        boolean formatted = false;
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(logDir);
            formatted = true;
            tighten(kafkaDir);
        }

        String bootstrap = HOST + ":" + ports.broker;
        KafkaRaftServer server;
        try {
            server = new KafkaRaftServer(config, Time.SYSTEM);
        } catch (RuntimeException e) {
            throw startFailure(kafkaDir, e);
        }
        try {
            server.startup();
            awaitReady(bootstrap);
        } catch (RuntimeException e) {
            shutdownQuietly(server);
            throw startFailure(kafkaDir, e);
        }
        log.info(
                "embedded kafka started bootstrap={} dataDir={} formatted={} elapsedMs={}",
                bootstrap,
                dataDir,
                formatted,
                elapsedMs(startedAt));
        return new EmbeddedKafka(dataDir, bootstrap, server);
    }

    /** The {@code host:port} clients use to reach this broker. */
    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The directory this broker was started on; its state lives in the {@code kafka} subdirectory. */
    public Path dataDir() {
        return dataDir;
    }

    /** Shuts the broker and controller down and waits for them; further calls do nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long startedAt = System.nanoTime();
        server.shutdown();
        server.awaitShutdown();
        log.info("embedded kafka stopped bootstrap={} elapsedMs={}", bootstrapServers, elapsedMs(startedAt));
    }

    private static Map<String, String> brokerConfig(Path logDir, Ports ports, Map<String, String> overrides) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", Integer.toString(NODE_ID));
        props.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + ports.controller);
        props.put("controller.listener.names", CONTROLLER_LISTENER);
        props.put(
                "listeners",
                BROKER_LISTENER + "://" + HOST + ":" + ports.broker + "," + CONTROLLER_LISTENER + "://" + HOST + ":"
                        + ports.controller);
        props.put("advertised.listeners", BROKER_LISTENER + "://" + HOST + ":" + ports.broker);
        props.put("inter.broker.listener.name", BROKER_LISTENER);
        props.put(
                "listener.security.protocol.map", BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        props.put("log.dirs", logDir.toString());

        // Topics are created deliberately by the application; a typo must not silently create one.
        props.put("auto.create.topics.enable", "false");
        props.put("num.partitions", "1");
        props.put("default.replication.factor", "1");
        props.put("message.max.bytes", Integer.toString(MAX_MESSAGE_BYTES));

        // One node: every internal topic must fit on it, and sharding coordinators across many partitions
        // only costs startup and first-use time.
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("share.coordinator.state.topic.num.partitions", "1");
        // Local clients start together, so holding the first rebalance open for late joiners only slows startup.
        props.put("group.initial.rebalance.delay.ms", "0");
        // After a kill -9 the controller still holds the dead process's broker registration and refuses the new
        // one until that session expires: with the 9 s default, 10 s of every crash restart went to waiting for
        // it. Broker and controller share this process, so a short session costs nothing in a healthy JVM;
        // heartbeats every 500 ms leave five chances in the 3 s before a stalled JVM is fenced.
        props.put("broker.heartbeat.interval.ms", "500");
        props.put("broker.session.timeout.ms", "3000");
        // The cleaner allocates this buffer eagerly; the 128 MiB default is a lot of heap for an in-process broker.
        props.put("log.cleaner.dedupe.buffer.size", Integer.toString(32 * 1024 * 1024));

        props.putAll(overrides);
        return props;
    }

    private static void format(Path logDir) {
        String clusterId = Uuid.randomUuid().toString();
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                    .setNodeId(NODE_ID)
                    .setClusterId(clusterId)
                    .setDirectories(List.of(logDir.toString()))
                    .setMetadataLogDirectory(logDir.toString())
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Could not format Kafka storage in " + logDir, e);
        }
        log.info("embedded kafka storage formatted clusterId={} logDir={}", clusterId, logDir);
    }

    private static void awaitReady(String bootstrap) {
        int timeoutMs = (int) READY_TIMEOUT.toMillis();
        Map<String, Object> adminConfig = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        try (Admin admin = Admin.create(adminConfig)) {
            if (admin.describeCluster()
                    .nodes()
                    .get(timeoutMs, TimeUnit.MILLISECONDS)
                    .isEmpty()) {
                throw new IllegalStateException("Embedded Kafka at " + bootstrap + " reports no live brokers");
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "Embedded Kafka at " + bootstrap + " did not answer within " + READY_TIMEOUT.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "Embedded Kafka at " + bootstrap + " did not answer: "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for embedded Kafka at " + bootstrap, e);
        }
    }

    private static void ensureFree(int port, String role, Path portsFile) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(HOST, port));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Embedded Kafka " + role + " port " + HOST + ":" + port + " (recorded in " + portsFile
                            + ") is in use; another broker may be running on this data directory",
                    e);
        }
    }

    private static IllegalStateException startFailure(Path kafkaDir, RuntimeException e) {
        if (e instanceof IllegalStateException ise) {
            return ise;
        }
        return new IllegalStateException("Embedded Kafka failed to start in " + kafkaDir + ": " + e.getMessage(), e);
    }

    private static void shutdownQuietly(KafkaRaftServer server) {
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("embedded kafka shutdown after failed start also failed error={}", e.toString());
        }
    }

    private static void createDirectories(Path dir) {
        try {
            PrivateFiles.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create " + dir, e);
        }
    }

    /** Folders {@code rwx------}, files without group and other permissions, whatever an older start left. */
    private static void tighten(Path dir) {
        try {
            PrivateFiles.tighten(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not restrict the permissions of " + dir, e);
        }
    }

    private static long elapsedMs(long startedAtNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAtNanos);
    }

    /** The broker and controller ports of one data directory, fixed at first start. */
    private record Ports(int broker, int controller) {

        static Ports load(Path file) {
            Properties props = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                props.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not read " + file, e);
            }
            return new Ports(parsePort(props, BROKER_PORT_KEY, file), parsePort(props, CONTROLLER_PORT_KEY, file));
        }

        static Ports allocate(Path file) {
            Ports ports;
            // Both sockets are held open together so the two ports are guaranteed to differ.
            try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getByName(HOST));
                    ServerSocket controller = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
                ports = new Ports(broker.getLocalPort(), controller.getLocalPort());
            } catch (IOException e) {
                throw new UncheckedIOException("Could not find free loopback ports", e);
            }
            Properties props = new Properties();
            props.setProperty(BROKER_PORT_KEY, Integer.toString(ports.broker));
            props.setProperty(CONTROLLER_PORT_KEY, Integer.toString(ports.controller));
            // Written via a temporary file so a crash never leaves a half-written ports file behind.
            Path tmp = file.resolveSibling(PORTS_FILE + ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                props.store(out, "Loopback ports of the embedded Kafka broker and controller, reused on every restart");
                PrivateFiles.restrictFile(tmp);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not write " + tmp, e);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not write " + file, e);
            }
            log.info(
                    "embedded kafka ports allocated brokerPort={} controllerPort={} file={}",
                    ports.broker,
                    ports.controller,
                    file);
            return ports;
        }

        private static int parsePort(Properties props, String key, Path file) {
            String value = props.getProperty(key, "").trim();
            if (value.matches("\\d{1,5}")) {
                int port = Integer.parseInt(value);
                if (port > 0 && port < 65536) {
                    return port;
                }
            }
            throw new IllegalStateException("Invalid or missing " + key + "=" + value + " in " + file);
        }
    }
}
