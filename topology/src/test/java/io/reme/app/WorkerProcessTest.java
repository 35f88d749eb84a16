package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.config.AppConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workers' consumer groups give a killed process up after the configured session timeout. */
class WorkerProcessTest {
    @TempDir
    Path dir;

    @Test
    void theWorkersGroupsUseTheSessionTimeoutAndKafkaOverridesWin() throws Exception {
        Map<String, Object> props =
                WorkerProcess.clientProps(AppConfig.of(Map.of(AppConfig.SESSION_TIMEOUT.name(), "12s")), "b:9092");
        assertEquals(12_000, props.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(4_000, props.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        assertEquals("b:9092", props.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));

        Path file = dir.resolve("reme.properties");
        Files.writeString(file, "kafka.session.timeout.ms=6000\n");
        AppConfig overridden = AppConfig.load(AppConfig.readFile(file), Map.of(), Map.of());
        assertEquals(
                "6000", WorkerProcess.clientProps(overridden, "b:9092").get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
    }
}
