package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.admin.TopicProvisioner;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.RequestSecret;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.ExtractTask;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.MergeDecision;
import io.reme.provider.MergeTask;
import io.reme.provider.SummaryTask;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.worker.ExtractionSetup;
import io.reme.worker.LlmWorkerPool;
import io.reme.worker.MemoryLookup;
import io.reme.worker.MemoryQuota;
import io.reme.worker.WorkerSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The LLM workers hold extracted memories to the tenant's memory count: with room for one more, an
 * extraction of three new memories and one update writes the update and the first new one, and
 * dead-letters the other two with the reason; the count is asked once for the request.
 */
@Tag("integration")
class ExtractionQuotaIT extends WithBroker {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final MemoryRecord EXISTING = MemoryRecord.of(
                    "existing-1",
                    "acme",
                    "alice",
                    "s0",
                    MemoryType.PERSONAL,
                    "Alice likes tea.",
                    NOW.minusSeconds(3600))
            .withTarget("alice");

    /** Personal candidates as scripted; the merge updates the existing memory for "update", adds the rest. */
    private static final class ScriptedClient implements LlmClient {
        @Override
        public String id() {
            return "scripted";
        }

        @Override
        public String summarize(SummaryTask task) throws LlmException {
            throw new LlmException("not scripted", false, null);
        }

        @Override
        public String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException {
            throw new LlmException("not scripted", false, null);
        }

        @Override
        public List<MemoryCandidate> extractMemories(ExtractTask task) {
            if (task.type() != MemoryType.PERSONAL) {
                return List.of();
            }
            return List.of("first new", "update", "second new", "third new").stream()
                    .map(text -> new MemoryCandidate(MemoryType.PERSONAL, "alice", text, NOW, Map.of()))
                    .toList();
        }

        @Override
        public MergeDecision mergeMemory(MergeTask task) {
            return task.candidate().content().equals("update")
                    ? MergeDecision.update(EXISTING.id(), "Alice likes green tea.")
                    : MergeDecision.add(task.candidate().content());
        }
    }

    @Test
    void newMemoriesPastTheRoomAreDeadLetteredAndUpdatesAreWritten() throws Exception {
        Topics topics = new Topics("quota.");
        Map<String, Object> clientProps = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (Admin admin = Admin.create(clientProps)) {
            TopicProvisioner.ensure(
                    admin, topics, topics.specs(1, 4 * 1024 * 1024, 16 * 1024 * 1024, Duration.ofDays(1)), 1);
        }
        AtomicInteger asked = new AtomicInteger();
        MemoryQuota quota = tenant -> {
            asked.incrementAndGet();
            return new MemoryQuota.Room(4, 5);
        };
        MemoryLookup lookup = (tenant, type, target, text, k) -> List.of(new MergeTask.Neighbour(EXISTING, 0.9));
        WorkerSettings settings = new WorkerSettings(
                1, Duration.ofSeconds(10), 1, Duration.ZERO, Duration.ZERO, 2000, 100, 5, ZoneId.of("UTC"));
        LlmRequest request = new LlmRequest(
                "r1",
                1,
                LlmKind.EXTRACT,
                List.of(),
                new LlmRequest.Dialog(
                        "acme",
                        "s1",
                        "alice",
                        0,
                        1,
                        1,
                        List.of(new Message(
                                "acme",
                                "s1",
                                "alice",
                                "m1",
                                Role.USER,
                                null,
                                NOW,
                                List.of(new Block.Text("I like tea.")))),
                        "en"),
                new LlmRequest.Compaction(null, 0, List.of()),
                1,
                NOW);
        try (LlmWorkerPool pool = LlmWorkerPool.start(new LlmWorkerPool.Setup.Builder(
                                clientProps,
                                topics,
                                "quota-workers",
                                settings,
                                new ScriptedClient(),
                                TokenCounter.forEncoding("o200k_base", 1000))
                        .extraction(
                                new ExtractionSetup(true, lookup, new MemoryPartitioning(1), quota),
                                RequestSecret.random())
                        .build());
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            producer.send(new ProducerRecord<>(
                            topics.llmRequests(), "acme/s1".getBytes(StandardCharsets.UTF_8), Json.bytes(request)))
                    .get();
            Awaitility.await("the request is answered")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> pool.completed() + pool.failed() == 1);
            assertEquals(1, pool.completed());
        }

        List<ConsumerRecord<String, byte[]>> written =
                TestKafka.readCommitted(broker.bootstrapServers(), topics.memoriesPending(), 2, Duration.ofSeconds(10));
        Set<String> texts = new HashSet<>();
        for (ConsumerRecord<String, byte[]> record : written) {
            texts.add(Json.MAPPER.readValue(record.value(), MemoryRecord.class).text());
        }
        assertEquals(Set.of("first new", "Alice likes green tea."), texts, "the update and the first new memory");

        List<ConsumerRecord<String, byte[]>> dead =
                TestKafka.readCommitted(broker.bootstrapServers(), topics.dlq(), 2, Duration.ofSeconds(10));
        Set<String> refused = new HashSet<>();
        for (ConsumerRecord<String, byte[]> record : dead) {
            assertEquals(DlqReason.MEMORY_QUOTA.name(), header(record, DeadLetterHeaders.REASON));
            String detail = header(record, DeadLetterHeaders.DETAIL);
            assertTrue(
                    detail.contains("tenant acme has 4 memories") && detail.contains("maxMemories 5"),
                    "the reason names tenant, count and limit: " + detail);
            assertEquals(topics.memoriesPending(), header(record, DeadLetterHeaders.TOPIC));
            refused.add(
                    Json.MAPPER.readValue(record.value(), MemoryRecord.class).text());
        }
        assertEquals(Set.of("second new", "third new"), refused);
        assertEquals(1, asked.get(), "the count is asked once per request");
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
