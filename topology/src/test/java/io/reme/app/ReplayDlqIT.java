package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.admin.TopicProvisioner;
import io.reme.cli.Main;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code replay-dlq} against a broker: a dead-lettered request goes back to llm.requests, once. */
@Tag("integration")
class ReplayDlqIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();

    @Test
    void theVerbSendsADeadLetteredRequestBackOnce() throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            TopicProvisioner.ensure(
                    admin, TOPICS, TOPICS.specs(2, 1024 * 1024, 16 * 1024 * 1024, Duration.ofDays(1)), 1);
        }
        LlmRequest diary = new LlmRequest(
                "req-1",
                4,
                LlmKind.DIARY,
                List.of(),
                new LlmRequest.Dialog("acme", "s1", "u1", 0, 0, 1, List.of(), "en"),
                LlmRequest.Compaction.NONE,
                3,
                Instant.parse("2026-11-30T10:00:00Z"));
        byte[] key = "acme/s1".getBytes(StandardCharsets.UTF_8);
        byte[] value = Json.MAPPER.writeValueAsBytes(diary);
        try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            producer.send(new ProducerRecord<>(
                            TOPICS.dlq(),
                            null,
                            key,
                            value,
                            DeadLetterHeaders.of(
                                    null, DlqReason.LLM_FAILED, "gave up after 10 failures", null, -1, -1, 0)))
                    .get();
            producer.send(new ProducerRecord<>(
                            TOPICS.dlq(),
                            null,
                            key,
                            "{}".getBytes(StandardCharsets.UTF_8),
                            DeadLetterHeaders.of(null, DlqReason.MALFORMED_JSON, "x", TOPICS.messages(), 0, 0, 0)))
                    .get();
        }

        assertEquals(0, replay());
        List<ConsumerRecord<String, byte[]>> requests =
                TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.llmRequests(), 1, Duration.ofSeconds(20));
        assertEquals(1, requests.size());
        assertEquals("acme/s1", requests.get(0).key());
        assertArrayEquals(value, requests.get(0).value(), "the request as it was dead-lettered");

        assertEquals(0, replay());
        assertEquals(
                1,
                TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.llmRequests(), 2, Duration.ofSeconds(5))
                        .size(),
                "a second replay sends nothing again");
    }

    private static int replay() {
        return new CommandLine(new Main())
                .execute(
                        "replay-dlq",
                        "--bootstrap-servers",
                        broker.bootstrapServers(),
                        "--data-dir",
                        dir.resolve("replay").toString(),
                        "--kind",
                        "DIARY,EXTRACT");
    }
}
