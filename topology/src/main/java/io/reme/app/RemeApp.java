package io.reme.app;

import io.reme.admin.TopicProvisioner;
import io.reme.broker.EmbeddedKafka;
import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.embedding.EmbeddingModel;
import io.reme.files.FileSinks;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import io.reme.index.MemoryIndexStore;
import io.reme.index.MemoryIndexUpdater;
import io.reme.index.MemoryPartitioning;
import io.reme.llm.RequestSecret;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.provider.LlmClient;
import io.reme.query.ApiKeys;
import io.reme.query.ApiServer;
import io.reme.query.MemoryWriter;
import io.reme.query.MessageIngest;
import io.reme.query.QueryLimits;
import io.reme.query.SearchSetup;
import io.reme.query.StreamThreadFailures;
import io.reme.search.MemoryIndex;
import io.reme.session.SessionSettings;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.topology.OutputExceptionHandler;
import io.reme.topology.RemeTopology;
import io.reme.topology.StreamsSettings;
import io.reme.workspace.DiaryFileWatcher;
import io.reme.workspace.PrivateFiles;
import io.reme.workspace.Workspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    public static final String DEFAULT_TENANT = "demo";

    private final AppConfig config;
    private final EmbeddedKafka broker;
    private final String bootstrapServers;
    private final KafkaStreams streams;
    private final Producer<byte[], byte[]> producer;
    private final ApiServer api;
    private final String apiKey;
    private final WorkerProcess workers;
    private final EmbeddingModel embeddings;
    private final FileSinks sinks;
    private final DiaryFileWatcher watcher;
    private final PrometheusMetrics metrics;
    private volatile boolean closed;

    private RemeApp(
            AppConfig config,
            EmbeddedKafka broker,
            String bootstrapServers,
            KafkaStreams streams,
            Producer<byte[], byte[]> producer,
            ApiServer api,
            String apiKey,
            WorkerProcess workers,
            EmbeddingModel embeddings,
            FileSinks sinks,
            DiaryFileWatcher watcher,
            PrometheusMetrics metrics) {
        this.config = config;
        this.broker = broker;
        this.bootstrapServers = bootstrapServers;
        this.streams = streams;
        this.producer = producer;
        this.api = api;
        this.apiKey = apiKey;
        this.workers = workers;
        this.embeddings = embeddings;
        this.sinks = sinks;
        this.watcher = watcher;
        this.metrics = metrics;
    }

    /** Starts everything and returns once Kafka Streams is running and the API answers. */
    public static RemeApp start(AppConfig config) {
        if (!MemoryIndex.vectorModuleEnabled()) {
            LOG.warn("vector module not enabled, Lucene compares vectors without SIMD: "
                    + "start java with --add-modules jdk.incubator.vector");
        }
        Path dataDir = config.dataDir();
        EmbeddedKafka broker = null;
        KafkaStreams streams = null;
        EmbeddingModel embeddings = null;
        Producer<byte[], byte[]> producer = null;
        WebServer bound = null;
        PrometheusMetrics metrics = new PrometheusMetrics(config.metricsTenants());
        try {
            PrivateFiles.tighten(dataDir);
            String host = config.get(AppConfig.HTTP_HOST);
            ApiKeys keys = ApiKeys.parse(config.get(AppConfig.API_KEYS));
            String generatedKey = null;
            if (keys.isEmpty()) {
                if (!InetAddress.getByName(host).isLoopbackAddress()) {
                    throw new ConfigException(java.util.List.of("reme.api.keys: required when the API binds to a "
                            + "non-loopback address (" + host + ")"));
                }
                generatedKey = demoKey(dataDir);
                keys = ApiKeys.single(DEFAULT_TENANT, generatedKey);
            }
            RequestSecret secret = RequestSecrets.resolve(config);
            if (config.embeddedBroker()) {
                broker = EmbeddedKafka.start(dataDir);
            }
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
            bound = WebServer.bind("reme-http", host, config.get(AppConfig.HTTP_PORT), HttpSettings.from(config));
            String advertised =
                    config.get(AppConfig.ADVERTISED_HOST).isBlank() ? host : config.get(AppConfig.ADVERTISED_HOST);
            HostInfo self = new HostInfo(advertised, bound.port());

            SessionSettings settings = config.sessionSettings().withRequestSecret(secret);
            MemoryPartitioning memoryPartitioning = new MemoryPartitioning(config.get(AppConfig.MEMORY_BUCKETS));
            int memoryPartitions;
            try (Admin admin = Admin.create(clientProps(config, bootstrap))) {
                memoryPartitions = TopicProvisioner.partitions(admin, topics.memories());
            }
            embeddings = Providers.embeddings(config);
            TokenCounter tokens =
                    TokenCounter.forEncoding(config.get(AppConfig.TOKEN_ENCODING), config.get(AppConfig.IMAGE_TOKENS));
            Properties props = StreamsSettings.properties(config, bootstrap, self.host() + ":" + self.port());
            props.put(OutputExceptionHandler.METRICS_CONFIG, metrics);
            // Before Streams reads any checkpoint: an index an older Lucene wrote is rebuilt from the topic.
            MemoryIndexStore.deleteOlderLuceneIndexes(
                    Path.of(props.getProperty(StreamsConfig.STATE_DIR_CONFIG))
                            .resolve(props.getProperty(StreamsConfig.APPLICATION_ID_CONFIG)),
                    MemoryIndexUpdater.STORE);
            streams = new KafkaStreams(
                    RemeTopology.build(topics, settings, tokens, memoryPartitioning, metrics, config.recordLimits()),
                    props);
            metrics.bind(streams);
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

            Map<String, Object> producerProps = clientProps(config, bootstrap);
            producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
            producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            producerProps.put(
                    ProducerConfig.MAX_REQUEST_SIZE_CONFIG, config.get(AppConfig.INPUT_MAX_BYTES) + 64 * 1024);
            producer = new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
            ApiServer api = ApiServer.start(
                    bound,
                    keys,
                    streams,
                    self,
                    settings,
                    tokens.encodingName(),
                    new MessageIngest(
                            producer, topics.messages(), config.get(AppConfig.INPUT_MAX_BYTES), settings.timeBounds()),
                    new SearchSetup(
                            topics.memories(),
                            memoryPartitions,
                            memoryPartitioning,
                            embeddings,
                            new QueryLimits(
                                    config.get(AppConfig.SEARCH_MAX_QUERY_CHARS),
                                    config.get(AppConfig.SEARCH_MAX_QUERY_TERMS))),
                    metrics,
                    new MemoryWriter(producer, topics.memories(), memoryPartitions, memoryPartitioning),
                    config.get(AppConfig.MEMORY_VISIBILITY_TIMEOUT),
                    failures);
            if (!running.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "Kafka Streams did not reach RUNNING within 120 s (state " + streams.state() + ")");
            }
            WorkerProcess workers = config.get(AppConfig.WORKERS_EMBEDDED)
                    ? WorkerProcess.start(config, bootstrap, tokens, metrics, api.memoryLookup(), embeddings)
                    : null;
            FileSinks sinks = config.sinksEmbedded()
                    ? FileSinks.start(
                            clientProps(config, bootstrap),
                            dataDir,
                            new FileSinks.Settings(
                                    config.get(AppConfig.APPLICATION_ID),
                                    topics,
                                    config.workspaceDir(),
                                    config.get(AppConfig.TOOL_RETENTION)))
                    : null;
            DiaryFileWatcher watcher = config.get(AppConfig.WATCH_INTERVAL).isZero()
                    ? null
                    : DiaryFileWatcher.start(
                            clientProps(config, bootstrap),
                            topics.diaryEdits(),
                            new Workspace(config.workspaceDir()),
                            config.get(AppConfig.WATCH_INTERVAL),
                            secret);
            LOG.info(
                    "started bootstrap={} http={}:{} partitions={} guarantee={} llm={} workspace={}",
                    bootstrap,
                    self.host(),
                    self.port(),
                    config.get(AppConfig.PARTITIONS),
                    config.get(AppConfig.PROCESSING_GUARANTEE),
                    workers == null ? "separate workers" : workers.llm().id(),
                    config.workspaceDir());
            return new RemeApp(
                    config,
                    broker,
                    bootstrap,
                    streams,
                    producer,
                    api,
                    generatedKey,
                    workers,
                    embeddings,
                    sinks,
                    watcher,
                    metrics);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(streams, producer, bound, broker, metrics);
            throw new IllegalStateException("interrupted during start", e);
        } catch (java.util.concurrent.ExecutionException e) {
            closeQuietly(streams, producer, bound, broker, metrics);
            throw new IllegalStateException("cannot describe the memories topic: " + e.getCause(), e.getCause());
        } catch (IOException e) {
            closeQuietly(streams, producer, bound, broker, metrics);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            closeQuietly(streams, producer, bound, broker, metrics);
            throw e;
        }
    }

    private static void closeQuietly(
            KafkaStreams streams,
            Producer<byte[], byte[]> producer,
            WebServer bound,
            EmbeddedKafka broker,
            PrometheusMetrics metrics) {
        metrics.close();
        if (streams != null) {
            streams.close(Duration.ofSeconds(10));
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (bound != null) {
            bound.close();
        }
        if (broker != null) {
            broker.close();
        }
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
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
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
        Map<String, Object> props = new java.util.HashMap<>();
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
        api.close();
        if (watcher != null) {
            watcher.close();
        }
        if (sinks != null) {
            sinks.close();
        }
        if (workers != null) {
            workers.close();
        }
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
        producer.close(Duration.ofSeconds(5));
        if (broker != null) {
            broker.close();
        }
        if (embeddings != null) {
            try {
                embeddings.close();
            } catch (Exception e) {
                LOG.debug("embedding model close failed error={}", e.toString());
            }
        }
        metrics.close();
        LOG.info("stopped");
    }
}
