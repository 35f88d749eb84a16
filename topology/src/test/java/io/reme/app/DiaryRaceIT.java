package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.provider.CooperativeModel;
import io.reme.provider.OpenAiTestServer;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two diary updates of the same user and day, from two sessions, race: the in-process workers run
 * both at once against a model endpoint that holds back each first write until both updates have
 * read the (still missing) page. Both then submit an edit based on the same version; the single
 * writer applies one, and the other worker must notice it lost, read again and re-apply its change
 * on top, so the page ends with both entries at version 2. And a day the model refuses as longer than
 * its context is written with each half of its messages in turn.
 */
@Tag("integration")
class DiaryRaceIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(DiaryRaceIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final String USER = "racer";
    private static final String DAY = "2026-03-02";
    private static final String DOCUMENT_KEY = "acme/" + USER + "/" + DAY;

    /**
     * Cooperative diary answers, except that the answer to each of the first two "read" results (the
     * model's turn that writes the page) waits until both have arrived.
     */
    static final class RacingModel {
        final CountDownLatch bothRead = new CountDownLatch(2);
        final AtomicInteger heldBack = new AtomicInteger();
        final AtomicBoolean overlapped = new AtomicBoolean(true);
        final AtomicInteger updatesStarted = new AtomicInteger();

        OpenAiTestServer.Reply answer(JsonNode body) {
            OpenAiTestServer.Request request = new OpenAiTestServer.Request(OpenAiTestServer.CHAT_PATH, null, body);
            if (!request.hasTools()) {
                throw new AssertionError("only diary updates are expected");
            }
            JsonNode last = request.last();
            if (!last.path("role").asText().equals("tool")) {
                updatesStarted.incrementAndGet();
            } else if (last.path("tool_call_id").asText().equals("call_read") && heldBack.getAndIncrement() < 2) {
                bothRead.countDown();
                try {
                    if (!bothRead.await(10, TimeUnit.SECONDS)) {
                        overlapped.set(false);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return CooperativeModel.answer(body);
        }
    }

    @Test
    void twoUpdatesOfTheSameDayBothLandAndTheLoserIsRetried() throws Exception {
        RacingModel model = new RacingModel();
        try (OpenAiTestServer server = OpenAiTestServer.start(model::answer)) {
            Map<String, String> options = options(server);
            options.put(AppConfig.LLM_TIMEOUT.name(), "20s");
            options.put(AppConfig.LLM_CONCURRENCY.name(), "4");

            try (RemeApp app = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("app"), options));
                    KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
                LlmRequest a = diary("race-a", "Decision: session A moves the ledger to /srv/payments/ledger.yaml");
                LlmRequest b = diary("race-b", "Decision: session B keeps max.in.flight=5 for PAY-7731");
                for (LlmRequest request : List.of(a, b)) {
                    producer.send(new ProducerRecord<>(
                            TOPICS.llmRequests(),
                            (request.dialog().tenant() + "/" + request.dialog().session())
                                    .getBytes(StandardCharsets.UTF_8),
                            Json.MAPPER.writeValueAsBytes(request)));
                }
                producer.flush();

                LlmRecords.Exchange exchange =
                        LlmRecords.await(broker.bootstrapServers(), TOPICS, Duration.ofSeconds(60));
                assertEquals(List.of(), exchange.notAnsweredExactlyOnce(LlmKind.DIARY));
                for (LlmRequest request : List.of(a, b)) {
                    LlmResult result = exchange.resultsOf(request).get(0);
                    assertEquals(LlmStatus.OK, result.status(), request.dialog().session() + ": " + result.error());
                }
                assertTrue(model.overlapped.get(), "both updates read the page before either wrote it");
                assertEquals(
                        3, model.updatesStarted.get(), "two updates and one retry of the loser talked to the model");

                // The single writer saw three edits: two based on the missing page, and the loser's retry on version 1.
                List<DiaryEdit> edits = new ArrayList<>();
                for (ConsumerRecord<String, byte[]> record : TestKafka.readCommitted(
                        broker.bootstrapServers(), TOPICS.diaryEdits(), 3, Duration.ofSeconds(15))) {
                    DiaryEdit edit = PipelineChecks.read(record.value(), DiaryEdit.class);
                    if (edit.key().key().equals(DOCUMENT_KEY)) {
                        edits.add(edit);
                    }
                }
                List<DiaryDocument> versions = new ArrayList<>();
                for (ConsumerRecord<String, byte[]> record :
                        TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.diary(), 2, Duration.ofSeconds(15))) {
                    if (record.key().equals(DOCUMENT_KEY)) {
                        versions.add(PipelineChecks.read(record.value(), DiaryDocument.class));
                    }
                }
                LOG.info(
                        "edits {}",
                        edits.stream()
                                .map(e -> e.author() + "@" + e.baseVersion())
                                .toList());
                assertEquals(3, edits.size(), "edits of " + DOCUMENT_KEY);
                assertEquals(
                        List.of(0L, 0L, 1L),
                        edits.stream().map(DiaryEdit::baseVersion).sorted().toList());
                assertEquals(
                        List.of(1L, 2L),
                        versions.stream().map(DiaryDocument::version).toList());
                String winner = versions.get(0).author();
                String loser = versions.get(1).author();
                assertEquals(
                        Set.of(a.requestId(), b.requestId()),
                        Set.of(winner, loser),
                        "each request applied one version");
                DiaryEdit retry = edits.stream()
                        .filter(e -> e.baseVersion() == 1)
                        .findFirst()
                        .orElseThrow();
                assertEquals(loser, retry.author(), "the version-2 edit is the loser's retry");
                assertEquals(retry.editId(), versions.get(1).editId());
                assertEquals(
                        Set.of(winner, loser),
                        edits.stream()
                                .filter(e -> e.baseVersion() == 0)
                                .map(DiaryEdit::author)
                                .collect(Collectors.toSet()),
                        "both first tries were based on no page");

                // What a client reads: one page with both entries.
                ContextApi.Response page = ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, USER, DAY);
                assertEquals(200, page.status(), page.body().toString());
                String content = page.body().path("content").asText();
                LOG.info("diary {} version {}:\n{}", DAY, page.body().path("version"), content);
                assertEquals(2, page.body().path("version").asLong());
                assertEquals(loser, page.body().path("author").asText());
                assertTrue(content.startsWith("# " + DAY), content);
                assertTrue(content.contains("session A moves the ledger to /srv/payments/ledger.yaml"), content);
                assertTrue(content.contains("session B keeps max.in.flight=5 for PAY-7731"), content);
                assertEquals(1, content.split("# " + DAY, -1).length - 1, "one title, not two pages glued: " + content);
            }
        }
    }

    @Test
    void aDayRefusedAsTooLongIsWrittenHalfByHalf() throws Exception {
        String user = "halver";
        String day = "2026-03-03";
        AtomicInteger refused = new AtomicInteger();
        // A model with a small context: an update whose transcript holds more than two decisions is refused.
        try (OpenAiTestServer server = OpenAiTestServer.start(body -> {
            OpenAiTestServer.Request request = new OpenAiTestServer.Request(OpenAiTestServer.CHAT_PATH, null, body);
            long decisions = request.content("user")
                    .lines()
                    .filter(line -> line.startsWith("Decision "))
                    .count();
            if (decisions > 2) {
                refused.incrementAndGet();
                return OpenAiTestServer.contextLengthExceeded();
            }
            return CooperativeModel.answer(body);
        })) {
            Map<String, String> options = options(server);
            try (RemeApp app =
                            RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("halves"), options));
                    KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
                Instant at = Instant.parse(day + "T09:00:00Z");
                List<Message> messages = new ArrayList<>();
                for (int i = 1; i <= 4; i++) {
                    messages.add(new Message(
                            "acme",
                            "halves",
                            user,
                            "halves-m" + i,
                            Role.USER,
                            null,
                            at.plusSeconds(i),
                            List.of(new Block.Text("Decision " + i + ": step " + i + " of PAY-" + (8000 + i)))));
                }
                LlmRequest request = new LlmRequest(
                        UUID.randomUUID().toString(),
                        1,
                        LlmKind.DIARY,
                        List.of(),
                        new LlmRequest.Dialog("acme", "halves", user, 0, 0, 3, messages, "en"),
                        LlmRequest.Compaction.NONE,
                        0,
                        at);
                producer.send(new ProducerRecord<>(
                        TOPICS.llmRequests(),
                        "acme/halves".getBytes(StandardCharsets.UTF_8),
                        Json.MAPPER.writeValueAsBytes(request)));
                producer.flush();

                LlmRecords.Exchange exchange =
                        LlmRecords.await(broker.bootstrapServers(), TOPICS, Duration.ofSeconds(60));
                LlmResult result = exchange.resultsOf(request).get(0);
                assertEquals(LlmStatus.OK, result.status(), result.error());
                assertEquals(1, refused.get(), "the whole day once, then each half fitted");
                ContextApi.Response page = ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, user, day);
                assertEquals(200, page.status(), page.body().toString());
                String content = page.body().path("content").asText();
                assertEquals(2, page.body().path("version").asLong(), "one edit per half: " + content);
                assertTrue(content.contains("Decision 1: step 1 of PAY-8001"), content);
                assertTrue(content.contains("Decision 3: step 3 of PAY-8003"), content);
                // Each half's edit names the messages it was written from.
                List<String> sources = new ArrayList<>();
                page.body()
                        .path("sources")
                        .forEach(span -> sources.add(span.path("session").asText() + ":"
                                + span.path("firstMessageId").asText() + ".."
                                + span.path("lastMessageId").asText()
                                + "/" + span.path("messages").asInt()));
                assertEquals(List.of("halves:halves-m1..halves-m2/2", "halves:halves-m3..halves-m4/2"), sources);
            }
        }
    }

    /** Embedded workers against the test model, retrying after 50 ms. */
    private static Map<String, String> options(OpenAiTestServer server) {
        Map<String, String> options = new HashMap<>();
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "true");
        options.put(AppConfig.LLM_BASE_URL.name(), server.baseUrl());
        options.put(AppConfig.LLM_API_KEY.name(), OpenAiTestServer.API_KEY);
        options.put(AppConfig.LLM_MODEL.name(), OpenAiTestServer.MODEL);
        options.put(AppConfig.LLM_BACKOFF.name(), "50ms");
        return options;
    }

    private static LlmRequest diary(String session, String text) {
        Instant at = Instant.parse(DAY + "T10:00:00Z");
        List<Message> messages = List.of(
                new Message("acme", session, USER, session + "-m0", Role.USER, null, at, List.of(new Block.Text(text))),
                new Message(
                        "acme",
                        session,
                        USER,
                        session + "-m1",
                        Role.ASSISTANT,
                        null,
                        at.plusSeconds(5),
                        List.of(new Block.Text("Noted."))));
        return new LlmRequest(
                UUID.randomUUID().toString(),
                1,
                LlmKind.DIARY,
                List.of(),
                new LlmRequest.Dialog("acme", session, USER, 0, 0, 1, messages, "en"),
                LlmRequest.Compaction.NONE,
                0,
                at);
    }
}
