package io.reme.topology;

import static io.reme.topology.SessionDriver.words;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.json.Json;
import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.session.DiarySpan;
import io.reme.session.SessionCounters.Counter;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    /** threshold 950 tokens, keep 200; idle after 30 min; a failed span waits 1, 2, 4 ... min; 3 failures at most. */
    private static final SessionSettings SETTINGS = SessionSettings.defaults()
            .withDefaultPolicy(SessionDriver.SMALL_WINDOW)
            .withTiming(Duration.ofSeconds(30), Duration.ofMinutes(10))
            .withDiaryRetry(new SessionSettings.DiaryRetry(Duration.ofMinutes(1), Duration.ofMinutes(4), 3));

    private SessionDriver driver;
    private int sent;

    @TempDir
    Path stateDir;

    @BeforeEach
    void start() {
        driver = SessionDriver.of(SETTINGS, SessionDriver.TOKENS, DriverProperties.of("test", stateDir), T0);
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
        List<LlmRequest> idle = driver.asked();
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
        assertTrue(driver.requests().isEmpty(), "not within the backoff");
        driver.advanceWallClockTime(Duration.ofSeconds(40));
        List<LlmRequest> again = driver.asked();
        assertEquals(1, again.size(), "only the kind that failed is sent again: " + again);
        assertEquals(LlmKind.DIARY, again.get(0).kind());
        assertEquals(diary.requestId(), again.get(0).requestId());
        assertEquals(diary.dialog().messages(), again.get(0).dialog().messages(), "the same span");
        assertEquals(1, again.get(0).attempt());

        result(LlmResult.ok(again.get(0), "written", 1, T0));
        assertEquals(1, header().diaryCoveredSeq(), "OK advances coverage over the span");
        assertTrue(spans().isEmpty());
        result(LlmResult.ok(again.get(0), "written", 1, T0));
        assertEquals(1, header().counters().get(Counter.DUPLICATE_RESULTS), "a re-delivered answer is dropped");
        driver.advanceWallClockTime(Duration.ofHours(2));
        assertTrue(driver.requests().isEmpty(), "a settled span is never sent again");
        assertTrue(driver.dlq().isEmpty());

        send("user", "and the green one");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> next = driver.asked();
        assertEquals(2, next.size());
        assertEquals(2, next.get(0).dialog().fromSeq(), "the next span starts after the covered one");
    }

    @Test
    void coverageNeverPassesAFailedSpanAndNoSpanIsSentTwice() {
        send("user", "question 0" + words(100));
        send("assistant", "answer 0" + words(100));
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        LlmRequest idle = driver.asked().get(0);
        result(LlmResult.failed(idle, "HTTP 500", 5, T0));
        result(LlmResult.failed(idle.withKind(LlmKind.EXTRACT), "HTTP 500", 5, T0));

        // The compaction that follows covers seq 0-3; its diary part holds only what no span holds yet.
        send("user", "question 1" + words(100));
        send("assistant", "answer 1" + words(100));
        send("user", "question 2" + words(100));
        List<LlmRequest> emitted = driver.asked();
        assertEquals(
                List.of(LlmKind.COMPACT, LlmKind.DIARY, LlmKind.EXTRACT),
                emitted.stream().map(LlmRequest::kind).toList());
        LlmRequest diary = emitted.get(1);
        assertEquals(2, diary.dialog().fromSeq(), "seq 0-1 are in the failed span, not sent twice");
        result(LlmResult.ok(diary, "written", 1, T0));
        result(LlmResult.ok(diary.withKind(LlmKind.EXTRACT), "added=2", 1, T0));
        assertEquals(-1, header().diaryCoveredSeq(), "a later success does not skip the failed span");

        driver.advanceWallClockTime(Duration.ofMinutes(2));
        List<LlmRequest> again = driver.asked();
        // The failed span again, then the compaction: never answered, its 10 min timeout is long past on the
        // wall clock (33 min in; the messages carry times near T0), so the timer plans it again.
        assertEquals(
                List.of(LlmKind.DIARY, LlmKind.EXTRACT, LlmKind.COMPACT),
                again.stream().map(LlmRequest::kind).toList());
        assertEquals(emitted.get(0).epoch() + 1, again.get(2).epoch());
        assertEquals(0, again.get(0).dialog().fromSeq());
        result(LlmResult.ok(again.get(0), "written", 1, T0));
        assertEquals(-1, header().diaryCoveredSeq(), "extraction of the span has not succeeded yet");
        result(LlmResult.ok(again.get(1), "added=1", 1, T0));
        assertEquals(diary.dialog().toSeq(), header().diaryCoveredSeq(), "both spans settled");
        assertTrue(spans().isEmpty());
    }

    @Test
    void aSpanAsksForItsDiaryAndItsExtractionInOneRecord() {
        send("user", "remember the blue deploy");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> records = driver.requests().readValuesToList();
        assertEquals(1, records.size(), "the span travels once");
        assertEquals(List.of(LlmKind.DIARY, LlmKind.EXTRACT), records.get(0).kinds());
        LlmRequest diary = records.get(0).withKind(LlmKind.DIARY);

        result(LlmResult.failed(diary, "HTTP 500", 5, T0));
        result(LlmResult.failed(diary.withKind(LlmKind.EXTRACT), "HTTP 500", 5, T0));
        driver.advanceWallClockTime(Duration.ofMinutes(2));
        records = driver.requests().readValuesToList();
        assertEquals(1, records.size(), "both failed kinds are sent again in one record");
        assertEquals(List.of(LlmKind.DIARY, LlmKind.EXTRACT), records.get(0).kinds());
        assertEquals(1, records.get(0).attempt());

        result(LlmResult.ok(records.get(0).withKind(LlmKind.EXTRACT), "added=1", 1, T0));
        result(LlmResult.ok(records.get(0).withKind(LlmKind.DIARY), "written", 1, T0));
        assertEquals(0, header().diaryCoveredSeq(), "each kind is answered on its own, and both settled");
        assertTrue(spans().isEmpty());
    }

    @Test
    void aSpanIsKeptWithoutACopyOfItsMessagesUntilACompactionArchivesThem() {
        send("user", "question 0" + words(100));
        send("assistant", "answer 0" + words(100));
        send("user", "question 1" + words(100));
        send("assistant", "answer 1" + words(100));
        send("user", "question 2" + words(100));
        List<LlmRequest> emitted = driver.asked();
        assertEquals(
                List.of(LlmKind.COMPACT, LlmKind.DIARY, LlmKind.EXTRACT),
                emitted.stream().map(LlmRequest::kind).toList());
        LlmRequest compact = emitted.get(0);
        LlmRequest diary = emitted.get(1);
        assertTrue(
                spans().get(0).request().dialog().messages().isEmpty(), "its messages are in the window: not copied");

        result(LlmResult.failed(diary, "HTTP 500", 5, T0));
        result(LlmResult.ok(compact, SessionDriver.summary("answer the questions"), 1, T0));
        assertTrue(
                header().window().firstLiveSeq() > diary.dialog().toSeq(),
                "the compaction archived the span's messages");
        assertEquals(
                diary.dialog().messages(),
                spans().get(0).request().dialog().messages(),
                "copied in before its messages left the window");

        driver.advanceWallClockTime(Duration.ofMinutes(2));
        List<LlmRequest> again = driver.asked();
        assertEquals(
                List.of(LlmKind.DIARY), again.stream().map(LlmRequest::kind).toList());
        assertEquals(diary.dialog().messages(), again.get(0).dialog().messages(), "the same span, from the copy");
        result(LlmResult.ok(again.get(0), "written", 1, T0));
        result(LlmResult.ok(diary.withKind(LlmKind.EXTRACT), "added=1", 1, T0));
        assertEquals(diary.dialog().toSeq(), header().diaryCoveredSeq());
        assertTrue(spans().isEmpty());
    }

    @Test
    void afterTheLimitASpanIsDeadLetteredWithItsReason() throws Exception {
        send("user", "short question");
        send("assistant", "short answer");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> idle = driver.asked();
        LlmRequest diary = idle.get(0);
        result(LlmResult.ok(idle.get(1), "added=0", 1, T0));
        LlmRequest current = diary;
        for (int failure = 1; failure < 3; failure++) {
            result(LlmResult.failed(current, "HTTP 500 #" + failure, 5, T0));
            driver.advanceWallClockTime(Duration.ofMinutes(5));
            List<LlmRequest> again = driver.asked();
            assertEquals(1, again.size());
            current = again.get(0);
            assertEquals(failure, current.attempt());
        }
        assertTrue(driver.dlq().isEmpty(), "not before the limit");
        result(LlmResult.failed(current, "HTTP 500 #3", 5, T0));

        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(1, dead.size(), "only the kind that never succeeded: " + dead.size());
        TestRecord<byte[], byte[]> record = dead.get(0);
        assertEquals(DlqReason.LLM_FAILED.name(), DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.REASON));
        assertTrue(DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.DETAIL)
                .contains("HTTP 500 #3"));
        assertEquals("acme/s1", new String(record.key(), StandardCharsets.UTF_8));
        LlmRequest request = Json.MAPPER.readValue(record.value(), LlmRequest.class);
        assertEquals(LlmKind.DIARY, request.kind());
        assertEquals(diary.requestId(), request.requestId());
        assertEquals(
                diary.dialog().messages(),
                request.dialog().messages(),
                "the request as a worker reads it, for a replay");

        SessionHeader header = header();
        assertEquals(1, header.diaryCoveredSeq(), "a dead-lettered span no longer holds coverage back");
        assertEquals(1, header.counters().get(Counter.DIARY_DEAD_LETTERED));
        assertEquals(3, header.counters().get(Counter.DIARY_FAILURES));
        assertTrue(spans().isEmpty());
        driver.advanceWallClockTime(Duration.ofHours(1));
        assertTrue(driver.requests().isEmpty(), "given up: never sent again by the session");
    }

    @Test
    void aSpanRefusedAsLongerThanTheContextIsDeadLetteredAtOnce() throws Exception {
        send("user", "short question");
        send("assistant", "short answer");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> idle = driver.asked();
        result(LlmResult.ok(idle.get(0), "written", 1, T0));
        // The worker halves a refused span itself: a refusal that reaches the session is one message too long.
        result(LlmResult.failed(idle.get(1), "HTTP 400: maximum context length", 3, T0, LlmFailure.CONTEXT_LENGTH));

        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(1, dead.size(), "not retried: the same span would be refused again");
        assertTrue(DeadLetterHeaders.read(dead.get(0).headers(), DeadLetterHeaders.DETAIL)
                .startsWith("a message is longer than the model's context"));
        assertEquals(
                LlmKind.EXTRACT,
                Json.MAPPER.readValue(dead.get(0).value(), LlmRequest.class).kind());
        assertEquals(1, header().diaryCoveredSeq());
        assertTrue(spans().isEmpty());
        driver.advanceWallClockTime(Duration.ofHours(1));
        assertTrue(driver.requests().isEmpty(), "never sent again by the session");
    }

    @Test
    void aKindStillInFlightIsNotDeadLetteredWithTheOneThatGaveUp() {
        send("user", "short question");
        send("assistant", "short answer");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> idle = driver.asked();
        LlmRequest current = idle.get(0);
        for (int failure = 1; failure <= 3; failure++) {
            result(LlmResult.failed(current, "HTTP 500", 5, T0));
            driver.advanceWallClockTime(Duration.ofMinutes(5));
            List<LlmRequest> again = driver.asked();
            current = again.isEmpty() ? current : again.get(0);
        }
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(1, dead.size());
        assertTrue(new String(dead.get(0).value(), StandardCharsets.UTF_8).contains("\"DIARY\""));
        assertEquals(-1, header().diaryCoveredSeq(), "the extraction in flight still holds coverage");

        result(LlmResult.ok(idle.get(1), "added=1", 1, T0));
        assertEquals(1, header().diaryCoveredSeq());
        assertTrue(spans().isEmpty());
        assertTrue(driver.dlq().isEmpty());
    }

    @Test
    void anExpiringSessionDeadLettersItsUnsettledSpan() throws Exception {
        send("user", "remember this");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        LlmRequest diary = driver.asked().get(0);
        result(LlmResult.ok(diary, "written", 1, T0));
        driver.advanceWallClockTime(Duration.ofDays(31));
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(1, dead.size(), "the extraction that never answered is handed over, not dropped");
        LlmRequest handed = Json.MAPPER.readValue(dead.get(0).value(), LlmRequest.class);
        assertEquals(LlmKind.EXTRACT, handed.kind());
        assertEquals(
                diary.dialog().messages(),
                handed.dialog().messages(),
                "with its messages, though the session's are gone");
        assertNull(header());
        assertTrue(spans().isEmpty());
    }

    private void send(String role, String content) {
        Instant time = T0.plusSeconds(sent);
        driver.send(SessionDriver.message("acme", "s1", "s1-" + sent, role, content, time), time);
        sent++;
    }

    private void result(LlmResult result) {
        driver.sendResult(result, T0.plusSeconds(sent));
    }

    private SessionHeader header() {
        return driver.header("acme", "s1");
    }

    private List<DiarySpan> spans() {
        List<DiarySpan> out = driver.<DiarySpan>entries(SessionStores.DIARY_SPANS).stream()
                .map(kv -> kv.value)
                .toList();
        assertNotNull(out);
        return out;
    }
}
