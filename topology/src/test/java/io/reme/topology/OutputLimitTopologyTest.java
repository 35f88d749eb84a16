package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.config.AppConfig;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.llm.LlmRequest;
import io.reme.metrics.PipelineMetrics;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output over the record limit, with the Streams settings production uses: the sink refuses it
 * before the producer sees it, the production exception handler drops it and dead-letters the input
 * that made it, and the task goes on with the next record instead of failing on it again and again.
 */
class OutputLimitTopologyTest {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    /** 200 KB per image, 100 tokens each: ten of them cross the 950-token threshold as a 2 MB window. */
    private static final int IMAGE_BYTES = 200_000;

    @TempDir
    Path dir;

    @Test
    void anLlmRequestOverTheRecordLimitIsDeadLetteredAndTheSessionGoesOn() {
        AppConfig config = AppConfig.of(Map.of(
                AppConfig.DATA_DIR.name(),
                dir.toString(),
                AppConfig.INPUT_MAX_BYTES.name(),
                Integer.toString(256 * 1024),
                AppConfig.REQUEST_MAX_BYTES.name(),
                Integer.toString(1024 * 1024)));
        List<DlqReason> reported = new ArrayList<>();
        PipelineMetrics metrics = new PipelineMetrics() {
            @Override
            public void deadLetter(DlqReason reason) {
                reported.add(reason);
            }
        };
        Properties props = StreamsSettings.properties(config, "unused:9092", "localhost:8080");
        props.put(OutputExceptionHandler.METRICS_CONFIG, metrics);
        TokenCounter tokens = TokenCounter.forEncoding("o200k_base", 100);
        try (SessionDriver driver = new SessionDriver(
                RemeTopology.build(
                        TOPICS,
                        config.sessionSettings().withDefaultPolicy(SessionDriver.SMALL_WINDOW),
                        tokens,
                        new MemoryPartitioning(1),
                        metrics,
                        config.recordLimits(),
                        RecordTracing.OFF),
                props,
                null,
                config.sessionSettings().requestSecret())) {
            TestOutputTopic<String, LlmRequest> requests = driver.requests();
            TestOutputTopic<byte[], byte[]> dlq = driver.dlq();

            byte[] crossing = null;
            for (int n = 0; n < 24 && crossing == null; n++) {
                byte[] sent = n % 2 == 0
                        ? driver.send(imageMessage(n), T0.plusSeconds(n))
                        : driver.send(textMessage(n, "assistant", "ok"), T0.plusSeconds(n));
                if (!dlq.isEmpty() || !requests.isEmpty()) {
                    crossing = sent;
                }
            }
            assertTrue(requests.isEmpty(), "a request over the record limit never reaches the producer");
            List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
            assertTrue(!dead.isEmpty(), "the dropped request is dead-lettered");
            for (TestRecord<byte[], byte[]> letter : dead) {
                assertEquals("OUTPUT_TOO_LARGE", DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.REASON));
                assertEquals(TOPICS.messages(), DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.TOPIC));
                assertArrayEquals(crossing, letter.value(), "the input that made the request, whole");
            }
            assertTrue(reported.contains(DlqReason.OUTPUT_TOO_LARGE));

            // The task was not failed: the next message of the session is appended as usual.
            long before = driver.header("acme", "s1").window().nextSeq();
            driver.send(textMessage(100, "user", "still here"), T0.plusSeconds(100));
            assertEquals(before + 1, driver.header("acme", "s1").window().nextSeq());
        }
    }

    private static ObjectNode textMessage(int n, String role, String text) {
        return SessionDriver.message("acme", "s1", "m" + n, role, text, T0.plusSeconds(n));
    }

    private static ObjectNode imageMessage(int n) {
        ObjectNode message = SessionDriver.envelope("acme", "s1", "m" + n, "user")
                .put("time", T0.plusSeconds(n).toString());
        message.putArray("content")
                .addObject()
                .put("type", "image_url")
                .putObject("image_url")
                .put("url", "data:image/png;base64," + "A".repeat(IMAGE_BYTES));
        return message;
    }
}
