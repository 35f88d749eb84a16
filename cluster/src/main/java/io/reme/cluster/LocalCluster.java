package io.reme.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A production-shaped ReMe Streams deployment on one machine, every part its own process under one
 * directory: three KRaft nodes ({@link KafkaNode}), the ACLs of {@code docker/acls.md}, a Kafka Connect
 * worker in distributed mode with the file sinks ({@link ConnectWorker}), application instances and a
 * separate workers process ({@link RemeProcess}).
 *
 * <p>{@link #start} brings up whatever of it is not running and returns when all of it answers;
 * {@link #stop} stops, in reverse order, only the processes whose pid files and command lines name the
 * directory. Both may be called from different JVMs: the directory's {@code cluster.properties} and
 * pid files are the whole state. The fault methods ({@link #node}, {@link #instance}, ...) give the
 * bench and the tests each process to kill and start again.
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LocalCluster.class);
    public static final int NODES = 3;
    private static final Duration NODE_STOP_GRACE = Duration.ofSeconds(60);
    /** Where, under the cluster's directory, the processes' copy of the application jar is. */
    private static final String APP_JAR = "lib/reme-streams.jar";

    /**
     * What to run besides the three nodes.
     *
     * @param instances application instances ({@code run})
     * @param connect whether to run the Connect worker with the file sinks
     * @param workers whether to run the separate {@code workers} process
     * @param appJar the application jar ({@code application/target/reme-streams-app.jar})
     * @param detached whether the processes outlive this JVM (the CLI) or die with it (tests, bench)
     * @param appEnvironment {@code REME_*} options added to every instance's and the workers' environment
     */
    public record Options(
            int instances,
            boolean connect,
            boolean workers,
            Path appJar,
            boolean detached,
            Map<String, String> appEnvironment) {
        public Options {
            if (instances < 0 || instances > 9) {
                throw new IllegalArgumentException("instances: 0 to 9, not " + instances);
            }
            appEnvironment = Map.copyOf(appEnvironment);
        }
    }

    private final ClusterSpec spec;
    private final Options options;
    private final List<KafkaNode> nodes = new ArrayList<>();
    private final List<RemeProcess> instances = new ArrayList<>();
    private final RemeProcess workers;
    private final ConnectWorker connect;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Launcher launcher;
    private Path appJar;

    private LocalCluster(ClusterSpec spec, Options options) {
        this.spec = spec;
        this.options = options;
        for (int id = 1; id <= spec.nodes(); id++) {
            nodes.add(new KafkaNode(spec, id));
        }
        for (int instance = 1; instance <= spec.appPorts().size(); instance++) {
            instances.add(RemeProcess.instance(spec, instance));
        }
        this.workers = RemeProcess.workers(spec);
        this.connect = new ConnectWorker(spec);
    }

    /** The cluster of {@code dir} (made on first use), not started. */
    public static LocalCluster in(Path dir, Options options) {
        ClusterSpec spec = ClusterSpec.loadOrCreate(dir, NODES, options.instances());
        if (spec.appPorts().size() < options.instances()) {
            throw new IllegalArgumentException(
                    dir + " was made for " + spec.appPorts().size() + " instances, not " + options.instances());
        }
        return new LocalCluster(spec, options);
    }

    /** The cluster an earlier start made in {@code dir}, every part of it, running the jar copied there. */
    public static LocalCluster existing(Path dir) {
        ClusterSpec spec = ClusterSpec.load(dir);
        return new LocalCluster(
                spec, new Options(spec.appPorts().size(), true, true, spec.dir().resolve(APP_JAR), false, Map.of()));
    }

    /** Stops every process of the cluster in {@code dir}, whatever started it. */
    public static void stop(Path dir) {
        existing(dir).stop();
    }

    public ClusterSpec spec() {
        return spec;
    }

    /** Starts what is not running and waits until the brokers, ACLs, Connect, workers and instances answer. */
    public LocalCluster start(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!Files.isRegularFile(options.appJar())
                && (options.instances() > 0 || options.connect() || options.workers())) {
            throw new IllegalArgumentException("no application jar at " + options.appJar()
                    + " (build it: mvn -DskipTests -pl application -am package)");
        }
        for (KafkaNode node : nodes) {
            if (!node.process().isAlive()) {
                node.start(launcher(), options.detached());
            }
        }
        awaitBrokers(NODES, deadline);
        applyAcls(deadline);
        log.info("kafka cluster ready nodes={} bootstrap={}", NODES, spec.bootstrapServers());
        for (int i = 0; i < options.instances(); i++) {
            startIfStopped(instances.get(i));
        }
        if (options.workers()) {
            startIfStopped(workers);
        }
        if (options.connect() && !connect.process().isAlive()) {
            connect.start(launcher(), appJar(), options.detached());
        }
        for (int i = 0; i < options.instances(); i++) {
            awaitInstance(i + 1, deadline);
        }
        if (options.workers()) {
            awaitHttp(workers.process(), "http://" + ClusterSpec.HOST + ":" + workers.port() + "/metrics", deadline);
        }
        if (options.connect()) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            connect.createConnectors(http, left);
            connect.awaitRunning(http, left);
        }
        return this;
    }

    /** Stops the instances, the workers, Connect, then the nodes: SIGTERM, SIGKILL after a grace period. */
    public void stop() {
        for (RemeProcess instance : instances) {
            instance.process().stop(Duration.ofSeconds(60));
        }
        workers.process().stop(Duration.ofSeconds(30));
        connect.process().stop(Duration.ofSeconds(30));
        // All nodes at once: stopped one by one, each would wait for the others to take its leaderships.
        for (KafkaNode node : nodes) {
            node.process().handle().ifPresent(ProcessHandle::destroy);
        }
        for (KafkaNode node : nodes) {
            node.process().stop(NODE_STOP_GRACE);
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** Node {@code id} (1 to 3). */
    public KafkaNode node(int id) {
        return nodes.get(id - 1);
    }

    /**
     * Starts node {@code id} again (after a kill, a stop or a wipe) and waits until it serves clients
     * itself and all three brokers answer.
     */
    public void restartNode(int id, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        node(id).start(launcher(), options.detached());
        awaitServing(id, deadline);
        awaitBrokers(NODES, deadline);
    }

    /**
     * Waits until node {@code id} answers a client on its own listener. The cluster's view is not
     * enough: a node killed and started again within the controller's broker session timeout is still
     * registered and unfenced from before, so the others list it while it is still starting.
     */
    private void awaitServing(int id, long deadline) {
        Properties settings = clientSettings("admin");
        settings.put(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                ClusterSpec.HOST + ":" + spec.brokerPorts().get(id - 1));
        try (Admin admin = Admin.create(settings)) {
            Waits.until(
                    "node-" + id + " serving",
                    deadline,
                    () -> admin.describeCluster().controller().get(10, TimeUnit.SECONDS) != null
                            && admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream()
                                    .anyMatch(node -> node.id() == id),
                    node(id).process());
        }
    }

    /** Application instance {@code instance} (from 1). */
    public RemeProcess instance(int instance) {
        return instances.get(instance - 1);
    }

    /** Starts instance {@code instance} again and waits until it is ready. */
    public void restartInstance(int instance, Duration timeout) {
        startIfStopped(instance(instance));
        awaitInstance(instance, System.nanoTime() + timeout.toNanos());
    }

    public RemeProcess workers() {
        return workers;
    }

    /** Starts the workers process again and waits until it serves its metrics. */
    public void restartWorkers(Duration timeout) {
        startIfStopped(workers);
        awaitHttp(
                workers.process(),
                "http://" + ClusterSpec.HOST + ":" + workers.port() + "/metrics",
                System.nanoTime() + timeout.toNanos());
    }

    public ConnectWorker connect() {
        return connect;
    }

    /** Starts the Connect worker again and waits until it runs every connector (they live in its config topic). */
    public void restartConnect(Duration timeout) {
        if (!connect.process().isAlive()) {
            connect.start(launcher(), appJar(), options.detached());
        }
        connect.awaitRunning(http, Duration.ofNanos(timeout.toNanos()));
    }

    /** The node that leads the metadata quorum (the active controller). */
    public int activeController() throws Exception {
        try (Admin admin = admin()) {
            return admin.describeMetadataQuorum()
                    .quorumInfo()
                    .get(30, TimeUnit.SECONDS)
                    .leaderId();
        }
    }

    /**
     * Waits until every partition of every topic has all its replicas in sync: after a restart or a
     * wiped disk, the cluster is whole again only once it could lose another node.
     */
    public void awaitInSync(Duration timeout) {
        try (Admin admin = admin()) {
            Waits.until(
                    "every replica in sync",
                    System.nanoTime() + timeout.toNanos(),
                    () -> {
                        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true))
                                .names()
                                .get(30, TimeUnit.SECONDS);
                        for (TopicDescription topic : admin.describeTopics(topics)
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .values()) {
                            for (TopicPartitionInfo partition : topic.partitions()) {
                                if (partition.isr().size()
                                        < partition.replicas().size()) {
                                    return false;
                                }
                            }
                        }
                        return true;
                    },
                    nodes.stream().map(KafkaNode::process).toArray(ChildProcess[]::new));
        }
    }

    /** Every process of the cluster, in start order. */
    public List<ChildProcess> processes() {
        List<ChildProcess> all = new ArrayList<>();
        nodes.forEach(node -> all.add(node.process()));
        instances.forEach(instance -> all.add(instance.process()));
        all.add(workers.process());
        all.add(connect.process());
        return all;
    }

    /** An admin client of the {@code admin} super user; the caller closes it. */
    public Admin admin() {
        return Admin.create(clientSettings("admin"));
    }

    /** Client settings that authenticate as {@code principal}, for producers, consumers and admin clients. */
    public Properties clientSettings(String principal) {
        Properties props = spec.clientSettings(principal);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return props;
    }

    /**
     * The application jar the processes run: a copy under the directory, so that a build writing a new
     * jar over the original (the shade plugin rewrites it in place) cannot pull classes from under a
     * running instance or Connect. Copied again only when the original changed.
     */
    private Path copyOfAppJar() {
        Path copy = spec.dir().resolve(APP_JAR);
        if (!Files.isRegularFile(options.appJar()) || options.appJar().equals(copy)) {
            return copy;
        }
        try {
            Files.createDirectories(copy.getParent());
            if (!Files.isRegularFile(copy)
                    || Files.size(copy) != Files.size(options.appJar())
                    || Files.getLastModifiedTime(copy).compareTo(Files.getLastModifiedTime(options.appJar())) < 0) {
                Path partial = copy.resolveSibling("reme-streams.jar.partial");
                Files.copy(options.appJar(), partial, StandardCopyOption.REPLACE_EXISTING);
                Files.move(partial, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not copy " + options.appJar() + " to " + copy, e);
        }
        return copy;
    }

    private Path appJar() {
        if (appJar == null) {
            appJar = copyOfAppJar();
        }
        return appJar;
    }

    private Launcher launcher() {
        if (launcher == null) {
            launcher = Launcher.forCluster(spec.dir());
        }
        return launcher;
    }

    private void startIfStopped(RemeProcess process) {
        if (!process.process().isAlive()) {
            process.start(launcher(), appJar(), options.appEnvironment(), options.detached());
        }
    }

    private void awaitBrokers(int count, long deadline) {
        try (Admin admin = admin()) {
            Waits.until(
                    count + " brokers",
                    deadline,
                    () -> admin.describeCluster()
                                    .nodes()
                                    .get(10, TimeUnit.SECONDS)
                                    .size()
                            == count,
                    nodes.stream().map(KafkaNode::process).toArray(ChildProcess[]::new));
        }
    }

    private void applyAcls(long deadline) {
        try (Admin admin = admin()) {
            Waits.until("the ACLs", deadline, () -> {
                admin.createAcls(ClusterAcls.bindings("reme.", "reme-streams"))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                return true;
            });
        }
    }

    private void awaitInstance(int instance, long deadline) {
        RemeProcess process = instance(instance);
        awaitHttp(process.process(), spec.appUrl(instance) + "/health/ready", deadline);
    }

    private void awaitHttp(ChildProcess process, String url, long deadline) {
        HttpRequest get = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        Waits.until(
                process.name() + " at " + url,
                deadline,
                () -> http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200,
                process);
    }
}
