package io.reme.topology;

import io.reme.config.AppConfig;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/** Derives the Kafka Streams properties from the configuration; {@code kafka.*} overrides win. */
public final class StreamsSettings {
    /** What the broker gathers for a stream thread's fetch before it answers, or {@link #MAIN_FETCH_MAX_WAIT_MS}. */
    static final int MAIN_FETCH_MIN_BYTES = 64 * 1024;

    static final int MAIN_FETCH_MAX_WAIT_MS = 25;

    private StreamsSettings() {}

    /**
     * With static membership on, reads (or makes, once) this instance's id in the data directory.
     *
     * @param bootstrapServers the cluster (embedded or configured)
     * @param applicationServer {@code host:port} of this instance's HTTP API, for interactive-query routing
     */
    public static Properties properties(AppConfig config, String bootstrapServers, String applicationServer) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.get(AppConfig.APPLICATION_ID));
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                config.dataDir().resolve("streams").toString());
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, applicationServer);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, config.get(AppConfig.PROCESSING_GUARANTEE));
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.get(AppConfig.STREAM_THREADS));
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.get(AppConfig.COMMIT_INTERVAL_MS));
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, (long) config.get(AppConfig.CACHE_MAX_BYTES));
        // The instance's RocksDbMemory itself goes in under RocksDbMemory.CONFIG (RemeApp); without it, defaults.
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, RocksDbMemory.ConfigSetter.class);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, config.get(AppConfig.REPLICATION_FACTOR));
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        // Opt in to the Kafka 5 behaviour now; we have no global stores, so this only silences a warning.
        // The constant is deprecated in Kafka 4.4, which announces this behaviour as the default from 5.0.
        @SuppressWarnings("deprecation")
        String globalHandler = StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG;
        props.put(globalHandler, true);
        // A window of messages travels in one request record: size the producer for it and compress.
        int maxRequest = config.get(AppConfig.REQUEST_MAX_BYTES);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), maxRequest + 64 * 1024);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "zstd");
        // Level 1, not zstd's default 3: a task writes many small batches per commit (a changelog per store
        // and partition), and level 3 set up and cleared its larger tables for each one, 12-14 % of the
        // session threads' CPU in bench ingest; at level 1 it is 7 %, for 0-8 % more bytes
        // (docs/benchmarks.md). Topics that keep zstd store such batches as they come.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG), 1);
        // With transactions v2 the first batch of every transaction can meet CONCURRENT_TRANSACTIONS
        // while the previous one completes; a later batch sent alongside it then reaches a partition
        // with no producer state, is refused as out of order, and the two can retry each other
        // forever (seen on 4.4 under load: a thread stalled for good). One request in flight per
        // connection keeps batches in order.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION), 1);
        props.put(
                StreamsConfig.consumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG), maxRequest + 64 * 1024);
        props.put(StreamsConfig.topicPrefix("max.message.bytes"), Integer.toString(maxRequest + 64 * 1024));
        // Below saturation a fetch answered at the first byte returns a few records, and the stream threads and
        // the broker spend their CPU on the fetch loop itself (a quarter of the stream threads' samples at a tenth
        // of the maximum rate). Letting the broker gather 64 KiB or 25 ms takes 18 % off the instance's CPU per
        // message and 20 % off the broker's at 2,700 messages/s, and the context read p99 from 19.4 to 12.5 ms
        // (docs/benchmarks.md, "Fetches that wait"); a message waits at most 25 ms more to be processed.
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG), MAIN_FETCH_MIN_BYTES);
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), MAIN_FETCH_MAX_WAIT_MS);
        // An output the record makes unwritable is dropped and dead-lettered instead of failing the task forever.
        props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, OutputExceptionHandler.class);
        props.put(OutputExceptionHandler.DLQ_TOPIC_CONFIG, config.topics().dlq());
        props.put(OutputExceptionHandler.INPUT_BYTES_CONFIG, Integer.toString(config.get(AppConfig.INPUT_MAX_BYTES)));
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.get(AppConfig.APPLICATION_ID));
        // Recovery: a restarted instance rejoins as the same static member (no wait for its old session),
        // a dead one is given up after the session timeout, and standbys make the takeover warm.
        if (config.get(AppConfig.STATIC_MEMBERSHIP)) {
            props.put(
                    StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                    InstanceId.loadOrCreate(config.dataDir()));
        }
        long sessionMs = config.get(AppConfig.SESSION_TIMEOUT).toMillis();
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) sessionMs);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) (sessionMs / 3));
        // The embedded broker serves one instance: no other could hold a standby, and Streams would warn
        // for every task at every rebalance that it cannot place one.
        props.put(
                StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
                config.embeddedBroker() ? 0 : config.get(AppConfig.STANDBY_REPLICAS));
        props.putAll(config.kafkaOverrides());
        return props;
    }
}
