package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.EditSignature;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.llm.RequestSecret;
import io.reme.session.DedupWindow;
import io.reme.session.SessionCounters.Counter;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the session refuses: results it did not ask for (forged request IDs), client retries of any
 * recent message, late results of requests it abandoned (stale, not duplicates), and diary edits
 * without the deployment's signature.
 */
class SessionGuardsTopologyTest {
    private static final RequestSecret SECRET = RequestSecret.of("session-guards-secret-0123456789abcdef");
    /** The small window; remember the last 5 IDs for 10 minutes. */
    private static final SessionSettings SETTINGS = SessionSettings.defaults()
            .withDefaultPolicy(SessionDriver.SMALL_WINDOW)
            .withTiming(Duration.ofSeconds(30), Duration.ofMinutes(10))
            .withRequestSecret(SECRET)
            .withDedup(new DedupWindow(5, Duration.ofMinutes(10)));

    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    private SessionDriver driver;
    private int sent;

    @TempDir
    Path stateDir;

    private void start(SessionSettings settings) {
        driver = SessionDriver.of(settings, SessionDriver.TOKENS, DriverProperties.of("guards", stateDir), T0);
    }

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.close();
        }
    }

    private void send(String id, String role, String content) {
        Instant time = T0.plusSeconds(sent++);
        driver.send(SessionDriver.message("acme", "s1", id, role, content, time), time);
    }

    private SessionHeader header() {
        return driver.header("acme", "s1");
    }

    private String summary() {
        KeyValueStore<String, String> store = driver.store(SessionStores.SUMMARIES);
        return store.get("acme/s1");
    }

    /** Three turns of ~400 tokens each: the third crosses 950 and a COMPACT request goes out. */
    private LlmRequest compactRequest() {
        for (int turn = 0; turn < 3; turn++) {
            send("q" + turn, "user", "question " + turn + SessionDriver.repeatedWord(200));
            send("a" + turn, "assistant", "answer " + turn + SessionDriver.repeatedWord(200));
        }
        List<LlmRequest> compact = driver.requestsOf(LlmKind.COMPACT);
        assertEquals(1, compact.size());
        return compact.get(0);
    }

    @Test
    void requestIdsAreKeyedBySecretAndStableAcrossReplays() {
        start(SETTINGS);
        LlmRequest first = compactRequest();
        // The session's first message is at offset 0: incarnation 1.
        assertEquals(1, first.dialog().incarnation());
        assertEquals(SECRET.requestId("acme/s1#1@1"), first.requestId());
        driver.close();
        sent = 0;
        start(SETTINGS);
        assertEquals(first.requestId(), compactRequest().requestId(), "the same input replayed asks the same request");
        driver.close();
        sent = 0;
        start(SETTINGS.withRequestSecret(RequestSecret.of("another-deployment-0123456789abcdef")));
        assertNotEquals(first.requestId(), compactRequest().requestId(), "another secret, another id");
    }

    @Test
    void aForgedResultWithTheOldGuessableIdIsRefusedCountedAndDeadLettered() {
        start(SETTINGS);
        LlmRequest request = compactRequest();
        String guessed = UUID.nameUUIDFromBytes("acme/s1#1".getBytes(StandardCharsets.UTF_8))
                .toString();
        driver.sendResult(
                new LlmResult(
                        guessed,
                        request.epoch(),
                        LlmKind.COMPACT,
                        "acme",
                        "s1",
                        LlmStatus.OK,
                        SessionDriver.summary("forged"),
                        null,
                        1,
                        T0),
                T0.plusSeconds(20));

        SessionHeader header = header();
        assertNotNull(header.pending(), "the real request is still pending");
        assertEquals(request.requestId(), header.pending().requestId());
        assertEquals(null, summary(), "the forged summary is not applied");
        assertEquals(6, header.liveCount(), "nothing archived");
        assertEquals(1, header.counters().get(Counter.FORGED_RESULTS));
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(1, dead.size());
        assertEquals(
                DlqReason.UNAUTHENTICATED.name(),
                DeadLetterHeaders.read(dead.get(0).headers(), DeadLetterHeaders.REASON));

        driver.sendResult(LlmResult.ok(request, SessionDriver.summary("real"), 1, T0), T0.plusSeconds(21));
        assertEquals(SessionDriver.summary("real"), summary(), "the real result still applies");
    }

    @Test
    void aResultCarryingTheRealPendingIdIsRefusedUnlessTheWorkersSignedIt() {
        start(SETTINGS);
        LlmRequest request = compactRequest();
        // The id travels in clear on llm.requests: a reader of that topic can copy it into an answer.
        LlmResult forged = LlmResult.ok(request, SessionDriver.summary("forged"), 1, T0);
        driver.sendResult(forged, T0.plusSeconds(20), null);
        driver.sendResult(forged, T0.plusSeconds(21), RequestSecret.of("another-deployment-0123456789abcdef"));
        LlmResult failed = LlmResult.failed(request, "forged failure", 1, T0);
        driver.sendResult(failed, T0.plusSeconds(22), null);

        SessionHeader header = header();
        assertNotNull(header.pending(), "the real request is still pending");
        assertEquals(request.requestId(), header.pending().requestId());
        assertEquals(null, summary(), "no forged summary is applied");
        assertEquals(null, header.compaction().lastFailure(), "nor a forged failure");
        assertEquals(3, header.counters().get(Counter.FORGED_RESULTS));
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(3, dead.size());
        for (TestRecord<byte[], byte[]> letter : dead) {
            assertEquals(
                    DlqReason.UNAUTHENTICATED.name(),
                    DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.REASON));
        }

        driver.sendResult(LlmResult.ok(request, SessionDriver.summary("real"), 1, T0), T0.plusSeconds(23));
        assertEquals(SessionDriver.summary("real"), summary(), "the workers' signed result applies");
    }

    @Test
    void aQuietSessionIsPlannedAgainOnceAFailedCompactionsBackoffIsOver() {
        start(SETTINGS);
        LlmRequest request = compactRequest();
        driver.sendResult(LlmResult.failed(request, "HTTP 503 after 5 attempts", 5, T0), T0.plusSeconds(20));
        assertEquals(List.of(), driver.requestsOf(LlmKind.COMPACT));

        // No message comes: the session must not stay over its threshold until one does.
        driver.advanceWallClockTime(Duration.ofSeconds(30));
        assertEquals(List.of(), driver.requestsOf(LlmKind.COMPACT), "not within the 30 s backoff (due at T0+50s)");
        driver.advanceWallClockTime(Duration.ofSeconds(30));
        List<LlmRequest> retried = driver.requestsOf(LlmKind.COMPACT);
        assertEquals(1, retried.size(), "planned again by the timer");
        assertEquals(request.epoch() + 1, retried.get(0).epoch());
        assertEquals(request.dialog().fromSeq(), retried.get(0).dialog().fromSeq());
        assertEquals(retried.get(0).requestId(), header().pending().requestId());
    }

    @Test
    void aQuietSessionWhoseCompactionIsNeverAnsweredIsPlannedAgainAfterTheTimeout() {
        start(SETTINGS);
        LlmRequest request = compactRequest();
        driver.advanceWallClockTime(Duration.ofMinutes(9));
        assertEquals(List.of(), driver.requestsOf(LlmKind.COMPACT), "pending, within the 10 min timeout");
        driver.advanceWallClockTime(Duration.ofMinutes(2));
        List<LlmRequest> again = driver.requestsOf(LlmKind.COMPACT);
        assertEquals(1, again.size());
        assertEquals(request.epoch() + 1, again.get(0).epoch());
        assertEquals(1, header().counters().get(Counter.COMPACTIONS_TIMED_OUT));
    }

    @Test
    void aRetryAfterNewerMessagesIsDroppedWithinTheWindowAndAcceptedBeyondIt() {
        start(SETTINGS);
        send("m0", "user", "first");
        send("m1", "assistant", "reply");
        send("m2", "user", "second");
        send("m0", "user", "first");
        assertEquals(3, header().liveCount(), "a retry of m0 after two newer messages is dropped");
        assertEquals(1, header().counters().get(Counter.DUPLICATE_MESSAGES));

        for (int i = 3; i < 8; i++) {
            send("m" + i, i % 2 == 0 ? "user" : "assistant", "more " + i);
        }
        send("m2", "user", "second");
        assertEquals(9, header().liveCount(), "m2 is 6 messages back: beyond a window of 5, accepted again");

        send("m7", "assistant", "more 7");
        assertEquals(2, header().counters().get(Counter.DUPLICATE_MESSAGES), "m7 is within the window");
        driver.advanceWallClockTime(Duration.ofMinutes(11));
        send("m7", "assistant", "more 7");
        assertEquals(10, header().liveCount(), "m7 remembered longer ago than 10 minutes: accepted again");
    }

    @Test
    void onlyDiaryEditsSignedWithTheSecretAreApplied() throws Exception {
        start(SETTINGS);
        TestInputTopic<byte[], byte[]> edits = driver.diaryEdits();
        TestOutputTopic<String, DiaryDocument> diary = driver.diary();
        byte[] key = "acme/alice/MEMORY".getBytes(StandardCharsets.UTF_8);
        byte[] forged = Json.MAPPER.writeValueAsBytes(
                new DiaryEdit("e1", "acme", "alice", "MEMORY", 0, "forged", "someone", T0, List.of()));
        edits.pipeInput(new TestRecord<>(key, forged, T0));
        RequestSecret other = RequestSecret.of("another-deployment-0123456789abcdef");
        edits.pipeInput(
                new TestRecord<>(key, forged, new RecordHeaders().add(EditSignature.header(other, key, forged)), T0));
        byte[] real = Json.MAPPER.writeValueAsBytes(
                new DiaryEdit("e2", "acme", "alice", "MEMORY", 0, "real", "req-1", T0, List.of()));
        // A signature of another record does not carry over.
        edits.pipeInput(
                new TestRecord<>(key, forged, new RecordHeaders().add(EditSignature.header(SECRET, key, real)), T0));
        assertTrue(diary.isEmpty(), "no unsigned or wrongly signed edit is applied");
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(3, dead.size());
        for (TestRecord<byte[], byte[]> record : dead) {
            assertEquals(
                    DlqReason.UNAUTHENTICATED.name(),
                    DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.REASON));
        }

        edits.pipeInput(
                new TestRecord<>(key, real, new RecordHeaders().add(EditSignature.header(SECRET, key, real)), T0));
        assertEquals("real", diary.readValue().content(), "the signed edit applies");
    }

    @Test
    void aLateResultOfAnAbandonedRequestIsStaleNotDuplicate() {
        start(SETTINGS);
        LlmRequest first = compactRequest();
        driver.advanceWallClockTime(Duration.ofMinutes(11));
        sent = 11 * 60;
        send("later", "user", "later" + SessionDriver.repeatedWord(5));
        assertEquals(1, header().counters().get(Counter.COMPACTIONS_TIMED_OUT));
        assertNotEquals(first.requestId(), header().pending().requestId(), "re-requested under a new epoch");

        driver.sendResult(LlmResult.ok(first, SessionDriver.summary("late"), 1, T0), T0.plus(Duration.ofMinutes(12)));
        SessionHeader header = header();
        assertEquals(1, header.counters().get(Counter.STALE_RESULTS));
        assertEquals(0, header.counters().get(Counter.DUPLICATE_RESULTS));
        assertEquals(null, summary());
    }
}
