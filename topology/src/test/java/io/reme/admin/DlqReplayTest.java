package io.reme.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** {@code replay-dlq}: the dead-lettered LLM requests, and only those, go back to llm.requests once. */
class DlqReplayTest {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final TopicPartition DLQ = new TopicPartition(TOPICS.dlq(), 0);

    @Test
    void deadLetteredRequestsOfTheReasonAreSentAgainUnchangedAndOnlyOnce() throws Exception {
        LlmRequest diary = request("acme", LlmKind.DIARY);
        LlmRequest extract = request("globex", LlmKind.EXTRACT);
        MockConsumer<byte[], byte[]> consumer = consumer(List.of(
                deadLetter(0, "acme/s1", Json.MAPPER.writeValueAsBytes(diary), DlqReason.LLM_FAILED),
                deadLetter(
                        1, "acme/s1", "{\"role\":\"user\"}".getBytes(StandardCharsets.UTF_8), DlqReason.MISSING_FIELD),
                deadLetter(2, "acme/s1", "not json".getBytes(StandardCharsets.UTF_8), DlqReason.LLM_FAILED),
                deadLetter(3, "globex/s2", Json.MAPPER.writeValueAsBytes(extract), DlqReason.LLM_FAILED)));
        MockProducer<byte[], byte[]> producer = producer();
        List<LlmRequest> reported = new ArrayList<>();

        DlqReplay.Summary summary =
                replay(consumer, producer, new DlqReplay.Filter("LLM_FAILED", Set.of(), null, false), reported);

        assertEquals(new DlqReplay.Summary(4, 2, 0), summary);
        assertEquals(List.of(diary, extract), reported);
        List<ProducerRecord<byte[], byte[]>> sent = producer.history();
        assertEquals(2, sent.size());
        assertEquals(TOPICS.llmRequests(), sent.get(0).topic());
        assertArrayEquals(
                "acme/s1".getBytes(StandardCharsets.UTF_8), sent.get(0).key(), "same key, same partition");
        assertArrayEquals(Json.MAPPER.writeValueAsBytes(diary), sent.get(0).value(), "the request as it was");
        assertEquals(
                Map.of(DLQ, new OffsetAndMetadata(4)),
                consumer.committed(Set.of(DLQ)),
                "the group remembers how far it read, so a second replay sends nothing again");
    }

    @Test
    void kindTenantAndDryRunNarrowWhatIsSent() throws Exception {
        MockConsumer<byte[], byte[]> consumer = consumer(List.of(
                deadLetter(
                        0,
                        "acme/s1",
                        Json.MAPPER.writeValueAsBytes(request("acme", LlmKind.DIARY)),
                        DlqReason.LLM_FAILED),
                deadLetter(
                        1,
                        "acme/s1",
                        Json.MAPPER.writeValueAsBytes(request("acme", LlmKind.COMPACT)),
                        DlqReason.LLM_FAILED),
                deadLetter(
                        2,
                        "globex/s1",
                        Json.MAPPER.writeValueAsBytes(request("globex", LlmKind.DIARY)),
                        DlqReason.LLM_FAILED)));
        MockProducer<byte[], byte[]> producer = producer();
        List<LlmRequest> reported = new ArrayList<>();

        DlqReplay.Summary summary = replay(
                consumer, producer, new DlqReplay.Filter("LLM_FAILED", Set.of(LlmKind.DIARY), "acme", true), reported);

        assertEquals(new DlqReplay.Summary(3, 1, 1), summary);
        assertEquals(LlmKind.DIARY, reported.get(0).kind());
        assertEquals("acme", reported.get(0).dialog().tenant());
        assertTrue(producer.history().isEmpty(), "a dry run sends nothing");
        assertTrue(consumer.committed(Set.of(DLQ)).isEmpty(), "and remembers nothing");
    }

    @Test
    void compactionsAreNeverReplayedTheirSessionPlansThemAgain() throws Exception {
        LlmRequest compact = request("acme", LlmKind.COMPACT);
        LlmRequest diary = request("acme", LlmKind.DIARY);
        MockConsumer<byte[], byte[]> consumer = consumer(List.of(
                deadLetter(0, "acme/s1", Json.MAPPER.writeValueAsBytes(compact), DlqReason.LLM_FAILED),
                deadLetter(1, "acme/s1", Json.MAPPER.writeValueAsBytes(diary), DlqReason.LLM_FAILED)));
        MockProducer<byte[], byte[]> producer = producer();
        List<LlmRequest> reported = new ArrayList<>();

        DlqReplay.Summary summary =
                replay(consumer, producer, new DlqReplay.Filter("LLM_FAILED", Set.of(), null, false), reported);

        assertEquals(new DlqReplay.Summary(2, 1, 1), summary);
        assertEquals(List.of(diary), reported);
        assertEquals(1, producer.history().size());
        assertThrows(
                IllegalArgumentException.class,
                () -> new DlqReplay.Filter("LLM_FAILED", Set.of(LlmKind.COMPACT), null, false));
    }

    private static DlqReplay.Summary replay(
            MockConsumer<byte[], byte[]> consumer,
            MockProducer<byte[], byte[]> producer,
            DlqReplay.Filter filter,
            List<LlmRequest> reported)
            throws InterruptedException {
        return DlqReplay.run(consumer, producer, TOPICS.dlq(), TOPICS.llmRequests(), filter, reported::add);
    }

    private static LlmRequest request(String tenant, LlmKind kind) {
        return new LlmRequest(
                "req-" + tenant + "-" + kind,
                3,
                kind,
                List.of(),
                new LlmRequest.Dialog(tenant, "s1", "u1", 0, 0, 1, List.of(), "en"),
                LlmRequest.Compaction.NONE,
                2,
                Instant.parse("2026-11-30T10:00:00Z"));
    }

    private static ConsumerRecord<byte[], byte[]> deadLetter(long offset, String key, byte[] value, DlqReason reason) {
        Headers headers = DeadLetterHeaders.of(null, reason, "HTTP 500", TOPICS.llmRequests(), 0, offset, 0);
        return new ConsumerRecord<>(
                DLQ.topic(),
                DLQ.partition(),
                offset,
                0L,
                TimestampType.CREATE_TIME,
                0,
                0,
                key.getBytes(StandardCharsets.UTF_8),
                value,
                headers,
                Optional.empty());
    }

    private static MockConsumer<byte[], byte[]> consumer(List<ConsumerRecord<byte[], byte[]>> records) {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        consumer.updatePartitions(
                DLQ.topic(), List.of(new PartitionInfo(DLQ.topic(), 0, Node.noNode(), new Node[0], new Node[0])));
        consumer.updateBeginningOffsets(Map.of(DLQ, 0L));
        consumer.updateEndOffsets(Map.of(DLQ, (long) records.size()));
        consumer.schedulePollTask(() -> records.forEach(consumer::addRecord));
        return consumer;
    }

    private static MockProducer<byte[], byte[]> producer() {
        return new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
