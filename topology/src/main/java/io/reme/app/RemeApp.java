package io.reme.app;

import io.opentelemetry.api.OpenTelemetry;
import io.reme.admin.TopicProvisioner;
import io.reme.api.cluster.StreamsStores;
import io.reme.api.memory.QueryLimits;
import io.reme.api.memory.SearchSetup;
import io.reme.api.tenant.ApiKeys;
import io.reme.api.tenant.TenantDirectory;
import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.edge.ApiServer;
import io.reme.edge.StreamThreadFailures;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.ProfileModels;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import io.reme.indexstore.MemoryIndexRestores;
import io.reme.indexstore.MemoryIndexStore;
import io.reme.indexstore.MemoryIndexUpdater;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.llm.RequestSecret;
import io.reme.local.FileSinkSettings;
import io.reme.local.LocalBroker;
import io.reme.local.LocalRuntime;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.provider.LlmClient;
import io.reme.search.MemoryIndex;
import io.reme.session.SessionSettings;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.topology.InstanceId;
import io.reme.topology.OutputExceptionHandler;
import io.reme.topology.RemeTopology;
import io.reme.topology.RocksDbMemory;
import io.reme.topology.StreamsSettings;
import io.reme.trace.RecordTracing;
import io.reme.workspace.DiaryFileWatcher;
import io.reme.workspace.PrivateFiles;
import io.reme.workspace.Workspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of ReMe Streams: starts the embedded broker (when no cluster is configured), creates
 * the topics, starts Kafka Streams and the HTTP API; {@link #close} stops them in reverse order and
 * leaves the consumer group so a restart does not wait for a session timeout.
 */
public final class RemeApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RemeApp.class);
    private static final long MIB = 1024L * 1024;
    public static final String DEFAULT_TENANT = "demo";

    private final AppConfig config;
    private final String bootstrapServers;
    private final KafkaStreams streams;
    private final ApiServer api;
    private final String apiKey;
    private final WorkerProcess workers;
    private final StartedResources resources;
    private volatile boolean closed;

    private RemeApp(
            AppConfig config,
            String bootstrapServers,
            KafkaStreams streams,
            ApiServer api,
            String apiKey,
            WorkerProcess workers,
            StartedResources resources) {
        this.config = config;
        this.bootstrapServers = bootstrapServers;
        this.streams = streams;
        this.api = api;
        this.apiKey = apiKey;
        this.workers = workers;
        this.resources = resources;
    }

    /**
     * Starts everything and returns once Kafka Streams is running and the API answers. If a step fails,
     * everything the earlier steps opened is closed again, the most recent first, before the failure is thrown.
     */
    public static RemeApp start(AppConfig config) {
        return start(config, Providers::embeddings);
    }

    /** The API's producer: messages, memory writes, diary edits and admin records, each acknowledged by all. */
    private static Producer<byte[], byte[]> apiProducer(AppConfig config, String bootstrap) {
        Map<String, Object> props = clientProps(config, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, config.get(AppConfig.INPUT_MAX_BYTES) + 64 * 1024);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** As above, with the embedding model made by {@code embeddingModels} (tests watch it being closed). */
    static RemeApp start(AppConfig config, Function<AppConfig, EmbeddingModel> embeddingModels) {
        return start(config, embeddingModels, Tracing.fromEnvironment(System.getenv()));
    }

    /**
     * As above, with the traces' SDK {@code traces} (tests record spans in memory), which the streams, the API and
     * the workers of this instance share and the app closes last.
     */
    static RemeApp start(AppConfig config, Function<AppConfig, EmbeddingModel> embeddingModels, OpenTelemetry traces) {
        if (!MemoryIndex.vectorModuleEnabled()) {
            LOG.warn("vector module not enabled, Lucene compares vectors without SIMD: "
                    + "start java with --add-modules jdk.incubator.vector");
        }
        Path dataDir = config.dataDir();
        StartedResources resources = new StartedResources();
        PrometheusMetrics metrics = resources.add("metrics", new PrometheusMetrics(config.metricsTenants()));
        // Closed after everything that records spans, so what they finished is sent.
        RecordTracing tracing = new RecordTracing(resources.add("traces", traces, () -> Tracing.close(traces)));
        try {
            PrivateFiles.tighten(dataDir);
            Keys keys = keys(config, dataDir);
            String secretText = RequestSecrets.text(config);
            RequestSecret secret = RequestSecret.of(secretText);
            LocalRuntime local = config.embeddedBroker() || config.sinksEmbedded() ? localRuntime(config) : null;
            String bootstrap = kafka(config, resources, local);
            WebServer bound = resources.add(
                    "http server",
                    WebServer.bind(
                            "reme-http",
                            config.get(AppConfig.HTTP_HOST),
                            config.get(AppConfig.HTTP_PORT),
                            HttpSettings.from(config)));
            String host = config.get(AppConfig.HTTP_HOST);
            String advertised =
                    config.get(AppConfig.ADVERTISED_HOST).isBlank() ? host : config.get(AppConfig.ADVERTISED_HOST);
            HostInfo self = new HostInfo(advertised, bound.port());
            SessionSettings settings = config.sessionSettings().withRequestSecret(secret);
            EmbeddingModel embeddings = resources.add("embedding model", embeddingModels.apply(config));
            TokenCounter tokens =
                    TokenCounter.forEncoding(config.get(AppConfig.TOKEN_ENCODING), config.get(AppConfig.IMAGE_TOKENS));
            Streams running = streams(config, resources, bootstrap, self, settings, tokens, metrics, tracing);
            StreamsStores stores = StreamsStores.of(running.streams());

            TenantDirectory directory = TenantDirectory.of(keys.api(), stores, secret, settings);
            InstanceServices services = InstanceServices.build(
                    config,
                    new InstanceServices.Kafka(
                            stores,
                            self,
                            config.topics(),
                            producer("producer", resources, apiProducer(config, bootstrap)),
                            producer("erasure producer", resources, erasureProducer(config, bootstrap, dataDir))),
                    settings,
                    tokens.encodingName(),
                    search(config, resources, bootstrap, embeddings),
                    metrics,
                    running.failures(),
                    directory,
                    keys.admin(),
                    tracing);
            ApiServer api = ApiServer.start(bound, services.api());
            awaitRunning(running.streams(), running.running());
            WorkerProcess workers = resources.add(
                    "llm workers",
                    embeddedWorkers(config, bootstrap, tokens, metrics, services, embeddings, directory, traces));
            resources.add("file sinks", fileSinks(config, bootstrap, local, secretText));
            resources.add(
                    "diary file watcher",
                    config.get(AppConfig.WATCH_INTERVAL).isZero()
                            ? null
                            : DiaryFileWatcher.start(
                                    clientProps(config, bootstrap),
                                    config.topics().diaryEdits(),
                                    new Workspace(config.workspaceDir()),
                                    config.get(AppConfig.WATCH_INTERVAL),
                                    secret));
            LOG.info(
                    "started bootstrap={} http={}:{} partitions={} guarantee={} llm={} workspace={}",
                    bootstrap,
                    self.host(),
                    self.port(),
                    config.get(AppConfig.PARTITIONS),
                    config.get(AppConfig.PROCESSING_GUARANTEE),
                    workers == null ? "separate workers" : workers.llm().id(),
                    config.workspaceDir());
            return new RemeApp(config, bootstrap, running.streams(), api, keys.generated(), workers, resources);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failed(resources, new IllegalStateException("interrupted during start", e));
        } catch (ExecutionException e) {
            throw failed(
                    resources,
                    new IllegalStateException("cannot describe the memories topic: " + e.getCause(), e.getCause()));
        } catch (IOException e) {
            throw failed(resources, new UncheckedIOException(e));
        } catch (RuntimeException e) {
            throw failed(resources, e);
        }
    }

    /**
     * The tenants' keys, the admin key, and the demo key generated when no keys are configured.
     *
     * @param generated the generated key of tenant {@code demo}, or null
     */
    private record Keys(ApiKeys api, String admin, String generated) {}

    private static Keys keys(AppConfig config, Path dataDir) throws IOException {
        String host = config.get(AppConfig.HTTP_HOST);
        ApiKeys keys = ApiKeys.parse(config.get(AppConfig.API_KEYS));
        String generatedKey = null;
        String adminKey = config.get(AppConfig.ADMIN_KEY);
        if (keys.isEmpty()) {
            boolean loopback = InetAddress.getByName(host).isLoopbackAddress();
            if (!loopback && adminKey.isEmpty()) {
                throw new ConfigException(List.of("reme.api.keys: required when the API binds to a "
                        + "non-loopback address (" + host + ") and there is no reme.admin.key to issue keys"));
            }
            if (loopback) {
                generatedKey = demoKey(dataDir);
                keys = ApiKeys.single(DEFAULT_TENANT, generatedKey);
            }
        }
        if (!adminKey.isEmpty() && keys.tenantOf("Bearer " + adminKey).isPresent()) {
            // The admin key must never double as a tenant's key, or that tenant could administer all.
            throw new ConfigException(List.of(
                    AppConfig.ADMIN_KEY.name() + ": must differ from every key of " + AppConfig.API_KEYS.name()));
        }
        return new Keys(keys, adminKey, generatedKey);
    }

    /** The broker (the embedded one when no cluster is configured) with the topics created: its bootstrap servers. */
    private static String kafka(AppConfig config, StartedResources resources, LocalRuntime local) {
        LocalBroker broker =
                config.embeddedBroker() ? resources.add("broker", local.startBroker(config.dataDir())) : null;
        String bootstrap = broker != null ? broker.bootstrapServers() : config.get(AppConfig.BOOTSTRAP_SERVERS);
        Topics topics = config.topics();
        try (Admin admin = Admin.create(clientProps(config, bootstrap))) {
            TopicProvisioner.ensure(
                    admin,
                    topics,
                    topics.specs(
                            config.get(AppConfig.PARTITIONS),
                            config.get(AppConfig.INPUT_MAX_BYTES),
                            config.get(AppConfig.REQUEST_MAX_BYTES),
                            config.get(AppConfig.TOOL_RETENTION)),
                    config.get(AppConfig.REPLICATION_FACTOR));
        }
        return bootstrap;
    }

    /**
     * Kafka Streams started, not yet running.
     *
     * @param running counted down when Streams first runs
     */
    private record Streams(KafkaStreams streams, StreamThreadFailures failures, CountDownLatch running) {}

    private static Streams streams(
            AppConfig config,
            StartedResources resources,
            String bootstrap,
            HostInfo self,
            SessionSettings settings,
            TokenCounter tokens,
            PrometheusMetrics metrics,
            RecordTracing tracing)
            throws IOException {
        Properties props = StreamsSettings.properties(config, bootstrap, self.host() + ":" + self.port());
        props.put(OutputExceptionHandler.METRICS_CONFIG, metrics);
        AtomicReference<KafkaStreams> built = new AtomicReference<>();
        RocksDbMemory rocksDb = rocksDbMemory(config, resources, built);
        props.put(RocksDbMemory.CONFIG, rocksDb);
        metrics.rocksDb(rocksDb);
        // Before Streams reads any checkpoint: an outdated index (older Lucene, older field layout) is rebuilt from
        // the topic.
        MemoryIndexStore.deleteOutdatedIndexes(
                Path.of(props.getProperty(StreamsConfig.STATE_DIR_CONFIG))
                        .resolve(props.getProperty(StreamsConfig.APPLICATION_ID_CONFIG)),
                MemoryIndexUpdater.STORE);
        KafkaStreams streams = new KafkaStreams(
                RemeTopology.build(
                        config.topics(),
                        settings,
                        tokens,
                        new MemoryPartitioning(config.get(AppConfig.MEMORY_BUCKETS)),
                        metrics,
                        config.recordLimits(),
                        tracing),
                props);
        built.set(streams);
        // Leaving the group, so a restart on the same state does not wait out a session timeout.
        resources.add(
                "streams",
                streams,
                () -> streams.close(
                        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                                .withTimeout(Duration.ofSeconds(30))));
        metrics.bind(streams);
        MemoryIndexRestores restores = new MemoryIndexRestores(MemoryIndexUpdater.STORE);
        streams.setGlobalStateRestoreListener(restores);
        metrics.indexRestores(restores);
        StreamThreadFailures failures = new StreamThreadFailures(
                config.get(AppConfig.HEALTH_THREAD_FAILURES),
                config.get(AppConfig.HEALTH_FAILURE_WINDOW),
                Clock.systemUTC());
        streams.setUncaughtExceptionHandler(failures);
        CountDownLatch running = new CountDownLatch(1);
        streams.setStateListener((next, previous) -> {
            LOG.info("streams state from={} to={}", previous, next);
            if (next == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
        });
        streams.start();
        return new Streams(streams, failures, running);
    }

    /** What the search fans out over: the memories topic's partitions, and the models of queries. */
    private static SearchSetup search(
            AppConfig config, StartedResources resources, String bootstrap, EmbeddingModel embeddings)
            throws InterruptedException, ExecutionException {
        int memoryPartitions;
        try (Admin admin = Admin.create(clientProps(config, bootstrap))) {
            memoryPartitions =
                    TopicProvisioner.partitions(admin, config.topics().memories());
        }
        return new SearchSetup(
                config.topics().memories(),
                memoryPartitions,
                new MemoryPartitioning(config.get(AppConfig.MEMORY_BUCKETS)),
                embeddings,
                new QueryLimits(
                        config.get(AppConfig.SEARCH_MAX_QUERY_CHARS), config.get(AppConfig.SEARCH_MAX_QUERY_TERMS)),
                profileModels(resources, embeddings));
    }

    private static Producer<byte[], byte[]> producer(
            String name, StartedResources resources, Producer<byte[], byte[]> producer) {
        return resources.add(name, producer, () -> producer.close(Duration.ofSeconds(5)));
    }

    /** The file sinks in an in-process Connect worker, when they run here; null when a Connect cluster runs them. */
    private static AutoCloseable fileSinks(AppConfig config, String bootstrap, LocalRuntime local, String secretText) {
        if (!config.sinksEmbedded()) {
            return null;
        }
        Path dataDir = config.dataDir();
        return local.startFileSinks(
                clientProps(config, bootstrap),
                dataDir,
                new FileSinkSettings(
                        config.get(AppConfig.APPLICATION_ID),
                        config.topics(),
                        config.workspaceDir(),
                        config.get(AppConfig.TOOL_RETENTION),
                        secretText,
                        config.recordLimits().inputTopicMaxMessageBytes()),
                new FileSinkSettings.Membership(
                        config.get(AppConfig.STATIC_MEMBERSHIP) ? InstanceId.loadOrCreate(dataDir) : "",
                        config.get(AppConfig.SESSION_TIMEOUT)));
    }

    /**
     * The embedded default's broker and Connect worker, which the demo jar holds and the application jar for a
     * cluster does not.
     */
    private static LocalRuntime localRuntime(AppConfig config) {
        return LocalRuntime.find()
                .orElseThrow(() -> new ConfigException(List.of((config.embeddedBroker()
                                ? AppConfig.BOOTSTRAP_SERVERS.name() + ": required, this jar has no embedded broker"
                                : AppConfig.SINKS_EMBEDDED.name() + ": this jar has no in-process Connect worker; "
                                        + "run the file sinks in a Connect cluster (false)")
                        + " (the embedded default is in reme-streams.jar)")));
    }

    /**
     * The producer of erasure requests: transactional, so that a request reaches every partition of the
     * three topics or none (a crash between two sends would leave an erasure half-requested). Its id is
     * this instance's, under the application id, whose prefix the deployment's ACLs already grant.
     */
    private static Producer<byte[], byte[]> erasureProducer(AppConfig config, String bootstrap, Path dataDir) {
        Map<String, Object> props = clientProps(config, bootstrap);
        props.put(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                config.get(AppConfig.APPLICATION_ID) + "-erasure-" + InstanceId.loadOrCreate(dataDir));
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        Producer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        try {
            producer.initTransactions();
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return producer;
    }

    /**
     * The RocksDB block cache and write buffers all stores of this instance share. Closed after Streams (opened
     * before it); if Streams did not close in time its stores may still use the cache, and freeing it under them
     * would crash the process: the exit frees it then.
     */
    private static RocksDbMemory rocksDbMemory(
            AppConfig config, StartedResources resources, AtomicReference<KafkaStreams> built) {
        RocksDbMemory rocksDb = new RocksDbMemory(
                config.get(AppConfig.ROCKSDB_MEMORY_MB) * MIB, config.get(AppConfig.ROCKSDB_WRITE_BUFFER_MB) * MIB);
        return resources.add("rocksdb memory", rocksDb, () -> {
            KafkaStreams client = built.get();
            if (client == null
                    || client.state() == KafkaStreams.State.NOT_RUNNING
                    || client.state() == KafkaStreams.State.ERROR) {
                rocksDb.close();
            } else {
                LOG.warn("rocksdb memory left to the process exit: streams state={}", client.state());
            }
        });
    }

    /** The models of queries: during a change of model, indexes not switched yet are searched with their own. */
    private static ProfileModels profileModels(StartedResources resources, EmbeddingModel embeddings) {
        return embeddings == null ? null : resources.add("older embedding profiles", ProfileModels.local(embeddings));
    }

    /**
     * The LLM workers of this instance, merging with the memories its API finds and held to the
     * tenants' policies as its directory sees them; null when the workers run elsewhere.
     */
    private static WorkerProcess embeddedWorkers(
            AppConfig config,
            String bootstrap,
            TokenCounter tokens,
            PrometheusMetrics metrics,
            InstanceServices services,
            EmbeddingModel embeddings,
            TenantDirectory directory,
            OpenTelemetry traces) {
        if (!config.get(AppConfig.WORKERS_EMBEDDED)) {
            return null;
        }
        return WorkerProcess.start(
                config,
                bootstrap,
                tokens,
                metrics,
                services.lookup(),
                embeddings,
                directory::llmConcurrency,
                services.quota(),
                traces);
    }

    /** Closes what the start opened and hands its failure back to be thrown. */
    private static RuntimeException failed(StartedResources resources, RuntimeException failure) {
        LOG.warn("start failed, closing what was opened resources={} error={}", resources.names(), failure.toString());
        return resources.closeAfter(failure);
    }

    /** The random key for tenant {@code demo}, made once and kept in {@code <data-dir>/api-key}. */
    private static String demoKey(Path dataDir) throws IOException {
        Path file = dataDir.resolve("api-key");
        if (Files.exists(file)) {
            String existing = Files.readString(file, StandardCharsets.UTF_8).trim();
            if (existing.length() >= 16) {
                return existing;
            }
        }
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        String key = HexFormat.of().formatHex(random);
        Files.writeString(file, key + "\n", StandardCharsets.UTF_8);
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            LOG.debug("no POSIX permissions on this file system for {}", file);
        }
        return key;
    }

    /** The workers' consumer group, derived from the application id so two deployments never share one. */
    public static String workerGroup(AppConfig config) {
        return config.get(AppConfig.APPLICATION_ID) + "-llm-workers";
    }

    public static Map<String, Object> clientProps(AppConfig config, String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.putAll(config.kafkaOverrides());
        return props;
    }

    public String httpUrl() {
        return "http://" + config.get(AppConfig.HTTP_HOST) + ":" + api.port();
    }

    public int httpPort() {
        return api.port();
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The generated key of tenant {@code demo}, or null when keys are configured. */
    public String generatedApiKey() {
        return apiKey;
    }

    /** The provider of the in-process workers, or null when workers run separately. */
    public LlmClient llm() {
        return workers == null ? null : workers.llm();
    }

    public KafkaStreams streams() {
        return streams;
    }

    public AppConfig config() {
        return config;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LOG.info("stopping");
        // Requests first, so none arrives while what serves it closes; then the rest, most recent first.
        api.close();
        resources.close();
        LOG.info("stopped");
    }

    /**
     * Waits for Streams to run, however long its stores take to restore: a new instance, or one whose
     * disk was lost, rebuilds them from their changelogs first, minutes for an index of millions of
     * memories, while the API already answers (reads of what is not restored yet are 503s, searches
     * partial). A bound here made such an instance fail its start every time. Streams that stop or
     * fail instead fail the start.
     */
    private static void awaitRunning(KafkaStreams streams, CountDownLatch running) throws InterruptedException {
        long started = System.nanoTime();
        while (!running.await(30, TimeUnit.SECONDS)) {
            KafkaStreams.State state = streams.state();
            if (!state.isRunningOrRebalancing() && state != KafkaStreams.State.CREATED) {
                throw new IllegalStateException("Kafka Streams stopped before it ran (state " + state + ")");
            }
            LOG.info(
                    "waiting for Kafka Streams to run state={} waitedS={} (restoring its stores)",
                    state,
                    (System.nanoTime() - started) / 1_000_000_000L);
        }
    }
}
