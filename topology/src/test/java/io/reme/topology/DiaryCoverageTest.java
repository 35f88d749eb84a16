package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.context.ContextPolicy;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.index.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.json.JsonSerde;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.session.DiarySpan;
import io.reme.session.SessionCounters.Counter;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Diary and memory coverage moves only over spans whose DIARY and EXTRACT requests succeeded: a
 * failed span is kept, sent again after the backoff, and dead-lettered with its reason after the
 * limit; nothing said is skipped and no span is sent twice once it succeeded.
 */
class DiaryCoverageTest {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    /** threshold 950 tokens, keep 200; idle after 30 min; a failed span waits 1, 2, 4 ... min; 3 failures at most. */
    private static final SessionSettings SETTINGS = SessionSettings.defaults()
            .withDefaultPolicy(new ContextPolicy(1000, 1.0, 200, 0))
            .withTiming(Duration.ofSeconds(30), Duration.ofMinutes(10))
            .withDiaryRetry(new SessionSettings.DiaryRetry(Duration.ofMinutes(1), Duration.ofMinutes(4), 3));

    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> messages;
    private TestInputTopic<byte[], byte[]> results;
    private TestOutputTopic<String, LlmRequest> requests;
    private TestOutputTopic<byte[], byte[]> dlq;
    private int sent;

    @TempDir
    Path stateDir;

    @BeforeEach
    void start() {
        Properties props = DriverProperties.of("test", stateDir);
        driver = new TopologyTestDriver(
                RemeTopology.build(TOPICS, SETTINGS, TOKENS, new MemoryPartitioning(1)), props, T0);
        ByteArraySerializer bytes = new ByteArraySerializer();
        messages = driver.createInputTopic(TOPICS.messages(), bytes, bytes);
        results = driver.createInputTopic(TOPICS.llmResults(), bytes, bytes);
        requests = driver.createOutputTopic(
                TOPICS.llmRequests(),
                new StringDeserializer(),
                JsonSerde.of(LlmRequest.class).deserializer());
        dlq = driver.createOutputTopic(TOPICS.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aFailedDiaryKeepsCoverageAndItsSpanIsSentAgainUntilItSucceeds() {
        send("user", "remember the blue deploy");
        send("assistant", "noted");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> idle = requests.readValuesToList();
        assertEquals(
                List.of(LlmKind.DIARY, LlmKind.EXTRACT),
                idle.stream().map(LlmRequest::kind).toList());
        LlmRequest diary = idle.get(0);
        assertEquals(-1, header().diaryCoveredSeq(), "nothing is covered before a result");

        result(LlmResult.failed(diary, "HTTP 503 after 5 attempts", 5, T0));
        result(LlmResult.ok(diary.withKind(LlmKind.EXTRACT), "added=1", 1, T0));
        assertEquals(-1, header().diaryCoveredSeq(), "a FAILED diary leaves coverage where it was");
        assertEquals(1, header().counters().get(Counter.DIARY_FAILURES));
        assertEquals(1, spans().size(), "the span is kept");

        driver.advanceWallClockTime(Duration.ofSeconds(30));
        assertTrue(requests.isEmpty(), "not within the backoff");
        driver.advanceWallClockTime(Duration.ofSeconds(40));
        List<LlmRequest> again = requests.readValuesToList();
        assertEquals(1, again.size(), "only the kind that failed is sent again: " + again);
        assertEquals(LlmKind.DIARY, again.get(0).kind());
        assertEquals(diary.requestId(), again.get(0).requestId());
        assertEquals(diary.messages(), again.get(0).messages(), "the same span");
        assertEquals(1, again.get(0).attempt());

        result(LlmResult.ok(again.get(0), "written", 1, T0));
        assertEquals(1, header().diaryCoveredSeq(), "OK advances coverage over the span");
        assertTrue(spans().isEmpty());
        result(LlmResult.ok(again.get(0), "written", 1, T0));
        assertEquals(1, header().counters().get(Counter.DUPLICATE_RESULTS), "a re-delivered answer is dropped");
        driver.advanceWallClockTime(Duration.ofHours(2));
        assertTrue(requests.isEmpty(), "a settled span is never sent again");
        assertTrue(dlq.isEmpty());

        send("user", "and the green one");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> next = requests.readValuesToList();
        assertEquals(2, next.size());
        assertEquals(2, next.get(0).fromSeq(), "the next span starts after the covered one");
    }

    @Test
    void coverageNeverPassesAFailedSpanAndNoSpanIsSentTwice() {
        send("user", "question 0" + words(100));
        send("assistant", "answer 0" + words(100));
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        LlmRequest idle = requests.readValuesToList().get(0);
        result(LlmResult.failed(idle, "HTTP 500", 5, T0));
        result(LlmResult.failed(idle.withKind(LlmKind.EXTRACT), "HTTP 500", 5, T0));

        // The compaction that follows covers seq 0-3; its diary part holds only what no span holds yet.
        send("user", "question 1" + words(100));
        send("assistant", "answer 1" + words(100));
        send("user", "question 2" + words(100));
        List<LlmRequest> emitted = requests.readValuesToList();
        assertEquals(
                List.of(LlmKind.COMPACT, LlmKind.DIARY, LlmKind.EXTRACT),
                emitted.stream().map(LlmRequest::kind).toList());
        LlmRequest diary = emitted.get(1);
        assertEquals(2, diary.fromSeq(), "seq 0-1 are in the failed span, not sent twice");
        result(LlmResult.ok(diary, "written", 1, T0));
        result(LlmResult.ok(diary.withKind(LlmKind.EXTRACT), "added=2", 1, T0));
        assertEquals(-1, header().diaryCoveredSeq(), "a later success does not skip the failed span");

        driver.advanceWallClockTime(Duration.ofMinutes(2));
        List<LlmRequest> again = requests.readValuesToList();
        assertEquals(
                List.of(LlmKind.DIARY, LlmKind.EXTRACT),
                again.stream().map(LlmRequest::kind).toList());
        assertEquals(0, again.get(0).fromSeq());
        result(LlmResult.ok(again.get(0), "written", 1, T0));
        assertEquals(-1, header().diaryCoveredSeq(), "extraction of the span has not succeeded yet");
        result(LlmResult.ok(again.get(1), "added=1", 1, T0));
        assertEquals(diary.toSeq(), header().diaryCoveredSeq(), "both spans settled");
        assertTrue(spans().isEmpty());
    }

    @Test
    void afterTheLimitASpanIsDeadLetteredWithItsReason() throws Exception {
        send("user", "short question");
        send("assistant", "short answer");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> idle = requests.readValuesToList();
        LlmRequest diary = idle.get(0);
        result(LlmResult.ok(idle.get(1), "added=0", 1, T0));
        LlmRequest current = diary;
        for (int failure = 1; failure < 3; failure++) {
            result(LlmResult.failed(current, "HTTP 500 #" + failure, 5, T0));
            driver.advanceWallClockTime(Duration.ofMinutes(5));
            List<LlmRequest> again = requests.readValuesToList();
            assertEquals(1, again.size());
            current = again.get(0);
            assertEquals(failure, current.attempt());
        }
        assertTrue(dlq.isEmpty(), "not before the limit");
        result(LlmResult.failed(current, "HTTP 500 #3", 5, T0));

        List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
        assertEquals(1, dead.size(), "only the kind that never succeeded: " + dead.size());
        TestRecord<byte[], byte[]> record = dead.get(0);
        assertEquals(DlqReason.LLM_FAILED.name(), DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.REASON));
        assertTrue(DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.DETAIL)
                .contains("HTTP 500 #3"));
        assertEquals("acme/s1", new String(record.key(), StandardCharsets.UTF_8));
        LlmRequest request = Json.MAPPER.readValue(record.value(), LlmRequest.class);
        assertEquals(LlmKind.DIARY, request.kind());
        assertEquals(diary.requestId(), request.requestId());
        assertEquals(diary.messages(), request.messages(), "the request as a worker reads it, for a replay");

        SessionHeader header = header();
        assertEquals(1, header.diaryCoveredSeq(), "a dead-lettered span no longer holds coverage back");
        assertEquals(1, header.counters().get(Counter.DIARY_DEAD_LETTERED));
        assertEquals(3, header.counters().get(Counter.DIARY_FAILURES));
        assertTrue(spans().isEmpty());
        driver.advanceWallClockTime(Duration.ofHours(1));
        assertTrue(requests.isEmpty(), "given up: never sent again by the session");
    }

    @Test
    void aKindStillInFlightIsNotDeadLetteredWithTheOneThatGaveUp() {
        send("user", "short question");
        send("assistant", "short answer");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> idle = requests.readValuesToList();
        LlmRequest current = idle.get(0);
        for (int failure = 1; failure <= 3; failure++) {
            result(LlmResult.failed(current, "HTTP 500", 5, T0));
            driver.advanceWallClockTime(Duration.ofMinutes(5));
            List<LlmRequest> again = requests.readValuesToList();
            current = again.isEmpty() ? current : again.get(0);
        }
        List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
        assertEquals(1, dead.size());
        assertTrue(new String(dead.get(0).value(), StandardCharsets.UTF_8).contains("\"DIARY\""));
        assertEquals(-1, header().diaryCoveredSeq(), "the extraction in flight still holds coverage");

        result(LlmResult.ok(idle.get(1), "added=1", 1, T0));
        assertEquals(1, header().diaryCoveredSeq());
        assertTrue(spans().isEmpty());
        assertTrue(dlq.isEmpty());
    }

    @Test
    void anExpiringSessionDeadLettersItsUnsettledSpan() {
        send("user", "remember this");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        LlmRequest diary = requests.readValuesToList().get(0);
        result(LlmResult.ok(diary, "written", 1, T0));
        driver.advanceWallClockTime(Duration.ofDays(31));
        List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
        assertEquals(1, dead.size(), "the extraction that never answered is handed over, not dropped");
        assertNull(header());
        assertTrue(spans().isEmpty());
    }

    private void send(String role, String content) {
        Instant time = T0.plusSeconds(sent);
        ObjectNode m = Json.MAPPER
                .createObjectNode()
                .put("tenant", "acme")
                .put("session", "s1")
                .put("user", "u1")
                .put("id", "s1-" + sent)
                .put("role", role)
                .put("content", content)
                .put("time", time.toString());
        messages.pipeInput(new TestRecord<>(
                "acme/s1".getBytes(StandardCharsets.UTF_8), m.toString().getBytes(StandardCharsets.UTF_8), time));
        sent++;
    }

    private void result(LlmResult result) {
        try {
            results.pipeInput(new TestRecord<>(
                    "acme/s1".getBytes(StandardCharsets.UTF_8),
                    Json.MAPPER.writeValueAsBytes(result),
                    T0.plusSeconds(sent)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private SessionHeader header() {
        KeyValueStore<String, SessionHeader> store = driver.getKeyValueStore(SessionStores.HEADERS);
        return store.get("acme/s1");
    }

    private List<DiarySpan> spans() {
        KeyValueStore<String, DiarySpan> store = driver.getKeyValueStore(SessionStores.DIARY_SPANS);
        List<DiarySpan> out = new ArrayList<>();
        try (KeyValueIterator<String, DiarySpan> it = store.all()) {
            it.forEachRemaining(kv -> out.add(kv.value));
        }
        assertNotNull(out);
        return out;
    }

    private static String words(int n) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            text.append(" word").append(i % 10);
        }
        return text.toString();
    }
}
