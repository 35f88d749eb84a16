package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recovery settings: a static member id kept in the data dir, the session timeout, standbys. */
class StreamsSettingsTest {
    private static final String INSTANCE_ID = StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);

    @TempDir
    Path dir;

    @Test
    void anInstanceKeepsItsStaticIdAcrossRestartsAndAnotherDataDirGetsAnother() throws Exception {
        Properties first = StreamsSettings.properties(config(dir.resolve("a"), Map.of()), "b:9092", "h:1");
        Properties again = StreamsSettings.properties(config(dir.resolve("a"), Map.of()), "b:9092", "h:1");
        Properties other = StreamsSettings.properties(config(dir.resolve("b"), Map.of()), "b:9092", "h:1");

        String id = (String) first.get(INSTANCE_ID);
        assertTrue(id.matches("reme-[0-9a-f]{24}"), id);
        assertEquals(id, again.get(INSTANCE_ID), "a restart on the same data dir is the same member");
        assertNotEquals(id, other.get(INSTANCE_ID));
        Path file = dir.resolve("a").resolve(InstanceId.FILE);
        assertEquals(id, Files.readString(file).trim());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void sessionTimeoutHeartbeatAndStandbysFollowTheConfigAndKafkaOverridesWin() throws Exception {
        Properties defaults = StreamsSettings.properties(
                config(dir, Map.of(AppConfig.BOOTSTRAP_SERVERS.name(), "b:9092")), "b:9092", "h:1");
        assertEquals(10_000, defaults.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(3_333, defaults.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        assertEquals(1, defaults.get(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG));
        assertEquals(64L << 20, defaults.get(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG));
        assertEquals(RocksDbMemory.ConfigSetter.class, defaults.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG));
        assertEquals("zstd", defaults.get(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG)));
        assertEquals(
                1,
                defaults.get(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG)),
                "the cheap level: tasks write many small batches");
        assertEquals(
                0,
                StreamsSettings.properties(config(dir, Map.of()), "127.0.0.1:9092", "h:1")
                        .get(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG),
                "the embedded broker serves one instance");

        Properties dynamic = StreamsSettings.properties(
                config(
                        dir.resolve("d"),
                        Map.of(
                                AppConfig.STATIC_MEMBERSHIP.name(),
                                "false",
                                AppConfig.SESSION_TIMEOUT.name(),
                                "45s",
                                AppConfig.STANDBY_REPLICAS.name(),
                                "0",
                                AppConfig.CACHE_MAX_BYTES.name(),
                                "0")),
                "b:9092",
                "h:1");
        assertFalse(dynamic.containsKey(INSTANCE_ID));
        assertFalse(Files.exists(dir.resolve("d").resolve(InstanceId.FILE)));
        assertEquals(45_000, dynamic.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(0, dynamic.get(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG));
        assertEquals(0L, dynamic.get(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG));

        String fetchMinBytes = StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG);
        String fetchMaxWait = StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
        assertEquals(65_536, defaults.get(fetchMinBytes), "the stream threads' fetches gather records");
        assertEquals(25, defaults.get(fetchMaxWait), "and wait for them at most 25 ms");

        Path file = dir.resolve("reme.properties");
        Files.writeString(file, "kafka.session.timeout.ms=6000\nkafka.main.consumer.fetch.max.wait.ms=5\n");
        AppConfig overridden =
                AppConfig.load(AppConfig.readFile(file), Map.of(), Map.of(AppConfig.DATA_DIR.name(), dir.toString()));
        Properties props = StreamsSettings.properties(overridden, "b:9092", "h:1");
        assertEquals("6000", props.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals("5", props.get(fetchMaxWait), "an operator's own fetch wait wins");
    }

    @Test
    void aSessionTimeoutTheBrokerWouldRefuseIsRefusedAtStart() {
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(
                ConfigException.class, () -> config(dir, Map.of(AppConfig.SESSION_TIMEOUT.name(), "2s")));
        assertTrue(e.getMessage().contains("reme.streams.session-timeout"), e.getMessage());
    }

    private static AppConfig config(Path dataDir, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(extra);
        options.put(AppConfig.DATA_DIR.name(), dataDir.toString());
        return AppConfig.of(options);
    }
}
