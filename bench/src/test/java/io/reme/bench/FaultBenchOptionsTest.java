package io.reme.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.config.AppConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fault benches' options, as a file and as the environment, are ones the application reads. */
class FaultBenchOptionsTest {
    @Test
    void everyOptionIsReadByTheApplicationUnderItsOwnVariable() {
        Map<String, String> options = FaultBenchOptions.compressed(
                6, "http://127.0.0.1:1/v1", Duration.ofSeconds(10), Duration.ofSeconds(20));
        Map<String, String> env = FaultBenchOptions.asEnvironment(options);
        assertEquals("http://127.0.0.1:1/v1", env.get("LLM_BASE_URL"));
        assertEquals("6", env.get("REME_TOPIC_PARTITIONS"));
        // Refused if any variable were one no option reads; the values are the file's.
        AppConfig fromEnv = AppConfig.load(Map.of(), env, Map.of());
        AppConfig fromFile = AppConfig.load(options, Map.of(), Map.of());
        assertEquals(fromFile.get(AppConfig.LLM_BASE_URL), fromEnv.get(AppConfig.LLM_BASE_URL));
        assertEquals(Duration.ofSeconds(20), fromEnv.get(AppConfig.IDLE_AFTER));
        assertEquals(4000, fromEnv.contextPolicy().maxInputLength());
    }
}
