package io.reme.topology;

import static io.reme.topology.SessionDriver.summary;
import static io.reme.topology.SessionDriver.words;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.context.ContextPolicy;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.message.Block;
import io.reme.metrics.PipelineMetrics;
import io.reme.session.ArchivedMessage;
import io.reme.session.SessionCounters.Counter;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.session.StoredMessage;
import io.reme.tokens.TokenCounter;
import io.reme.toolresult.ToolResultTruncator;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session sub-topology as production wires it, driven record by record. */
class RemeTopologyTest {
    private static final Topics TOPICS = SessionDriver.TOPICS;
    private static final TokenCounter TOKENS = SessionDriver.TOKENS;
    private static final SessionSettings SETTINGS = SessionDriver.settings(SessionDriver.SMALL_WINDOW);

    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private int sent;
    /** What the processors reported to the metrics, counted per event. */
    private final Map<String, Long> reported = new ConcurrentHashMap<>();

    private final PipelineMetrics metrics = new PipelineMetrics() {
        @Override
        public void messageIn(String tenant, int tokens) {
            reported.merge("messages " + tenant, 1L, Long::sum);
            reported.merge("tokens " + tenant, (long) tokens, Long::sum);
        }

        @Override
        public void compaction(String tenant, Compaction event) {
            reported.merge(tenant + " " + event, 1L, Long::sum);
        }

        @Override
        public void deadLetter(DlqReason reason) {
            reported.merge("dlq " + reason, 1L, Long::sum);
        }
    };

    @BeforeEach
    void start() {
        driver = new SessionDriver(
                RemeTopology.build(TOPICS, SETTINGS, TOKENS, new MemoryPartitioning(1), metrics),
                DriverProperties.of("test", stateDir),
                null,
                SETTINGS.requestSecret());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    // ---- helpers ----

    private void send(String session, String role, String content) {
        driver.send(
                SessionDriver.message("acme", session, session + "-" + sent, role, content, T0.plusSeconds(sent)),
                T0.plusSeconds(sent));
        sent++;
    }

    private void sendTool(String session, String callId, String output) {
        ObjectNode call = SessionDriver.envelope("acme", session, session + "-" + sent, "assistant")
                .put("time", T0.plusSeconds(sent).toString());
        driver.send(SessionDriver.withToolCall(call, callId, "read_file", "{\"path\":\"/a\"}"), T0.plusSeconds(sent));
        sent++;
        ObjectNode result = SessionDriver.withToolResult(
                        SessionDriver.envelope("acme", session, session + "-" + sent, "tool"),
                        callId,
                        "read_file",
                        output)
                .put("time", T0.plusSeconds(sent).toString());
        driver.send(result, T0.plusSeconds(sent));
        sent++;
    }

    private void sendRaw(String key, String value, Instant time) {
        driver.sendRaw(key, value, time);
        sent++;
    }

    private void sendResult(LlmResult result, Instant time) {
        driver.sendResult(result, time);
    }

    private SessionHeader header(String session) {
        return driver.header("acme", session);
    }

    private String summaryOf(String session) {
        KeyValueStore<String, String> store = driver.store(SessionStores.SUMMARIES);
        String summary = store.get("acme/" + session);
        return summary == null ? "" : summary;
    }

    private List<String> activityOf(String session) {
        return driver.<String>entries(SessionStores.ACTIVITY).stream()
                .map(kv -> kv.key)
                .filter(key -> key.endsWith("/acme/" + session))
                .toList();
    }

    private List<StoredMessage> live(String session) {
        return driver.<StoredMessage>entries(SessionStores.MESSAGES, "acme/" + session + "/").stream()
                .map(kv -> kv.value)
                .toList();
    }

    /** Three turns of ~400 tokens each: the third crosses 950. */
    private void fillOverThreshold(String session) {
        for (int turn = 0; turn < 3; turn++) {
            send(session, "user", "question " + turn + words(200));
            send(session, "assistant", "answer " + turn + words(200));
        }
    }

    /**
     * The requests emitted since the last read, each as its own kind alone, after checking that each
     * DIARY request asks in the same record for the extraction of exactly the same span.
     */
    private List<LlmRequest> requests() {
        return requestKeyValues().stream().map(kv -> kv.value).toList();
    }

    private List<org.apache.kafka.streams.KeyValue<String, LlmRequest>> requestKeyValues() {
        List<org.apache.kafka.streams.KeyValue<String, LlmRequest>> rest = new ArrayList<>();
        for (org.apache.kafka.streams.KeyValue<String, LlmRequest> kv :
                driver.requests().readKeyValuesToList()) {
            LlmRequest request = kv.value;
            assertNotEquals(LlmKind.EXTRACT, request.kind(), "an EXTRACT request only as a DIARY one's twin");
            List<LlmKind> expected =
                    request.kind() == LlmKind.DIARY ? List.of(LlmKind.DIARY, LlmKind.EXTRACT) : List.of(request.kind());
            assertEquals(expected, request.kinds(), "the same record asks for extraction " + request.requestId());
            rest.add(new org.apache.kafka.streams.KeyValue<>(kv.key, request.withKind(request.kind())));
        }
        return rest;
    }

    // ---- tests ----

    @Test
    void crossingTheThresholdEmitsExactlyOnePendingRequest() {
        send("s1", "user", "hello" + words(100));
        assertTrue(driver.requests().isEmpty(), "under threshold: no request");
        fillOverThreshold("s1");
        List<org.apache.kafka.streams.KeyValue<String, LlmRequest>> emitted = requestKeyValues();
        assertEquals(2, emitted.size(), "one COMPACT and one DIARY request");
        LlmRequest compact = emitted.get(0).value;
        LlmRequest diary = emitted.get(1).value;
        assertEquals("acme/s1", emitted.get(0).key);
        assertEquals(LlmKind.COMPACT, compact.kind());
        assertEquals(LlmKind.DIARY, diary.kind());
        assertEquals(compact.requestId(), diary.requestId());
        assertEquals(1, compact.epoch());
        assertEquals(compact.dialog().fromSeq(), diary.dialog().fromSeq());
        assertEquals(compact.dialog().toSeq(), diary.dialog().toSeq());
        assertEquals(0, compact.dialog().fromSeq());
        assertTrue(compact.dialog().messages().get(0).startsTurn());

        SessionHeader header = header("s1");
        assertNotNull(header.pending());
        assertEquals(compact.requestId(), header.pending().requestId());
        // The first kept message opens a turn, and the kept part fits the 200-token budget... or is the last turn.
        List<StoredMessage> window = live("s1");
        assertEquals(7, window.size(), "messages stay live until a result is applied");
        StoredMessage firstKept = window.stream()
                .filter(m -> m.seq() == compact.dialog().toSeq() + 1)
                .findFirst()
                .orElseThrow();
        assertTrue(firstKept.message().startsTurn());

        send("s1", "user", "more" + words(300));
        send("s1", "assistant", "more" + words(300));
        assertTrue(driver.requests().isEmpty(), "nothing more while a request is pending");
        assertEquals(1, header("s1").counters().get(Counter.COMPACTIONS_REQUESTED));
    }

    @Test
    void anOkResultReplacesTheSummaryAndArchivesTheSpanExactlyOnce() {
        fillOverThreshold("s1");
        LlmRequest request = requests().get(0);
        long liveBefore = header("s1").messageTokens();
        sendResult(LlmResult.ok(request, summary("ship it"), 1, T0.plusSeconds(60)), T0.plusSeconds(60));

        List<ArchivedMessage> archived = driver.dialog().readValuesToList();
        assertEquals(request.dialog().messages().size(), archived.size());
        for (int i = 0; i < archived.size(); i++) {
            assertEquals(
                    request.dialog().messages().get(i).id(),
                    archived.get(i).message().id());
            assertEquals(request.dialog().fromSeq() + i, archived.get(i).seq());
            assertEquals("2026-11-30", archived.get(i).date());
            assertEquals("u1", archived.get(i).user());
        }
        SessionHeader header = header("s1");
        assertEquals(summary("ship it"), summaryOf("s1"));
        assertEquals(TOKENS.count(summaryOf("s1")), header.summaryTokens());
        assertEquals(1, header.summaryVersion());
        List<StoredMessage> window = live("s1");
        assertEquals(6 - archived.size(), window.size());
        assertEquals(request.dialog().toSeq() + 1, window.get(0).seq());
        long sum = window.stream().mapToLong(StoredMessage::tokens).sum();
        assertEquals(sum, header.messageTokens());
        assertTrue(header.messageTokens() < liveBefore);
        for (StoredMessage m : window) {
            assertEquals(TOKENS.count(m.message()), m.tokens(), "stored token counts equal jtokkit's");
        }
        // Still over the threshold after the first compaction: the next one is requested at once.
        List<LlmRequest> next = requests();
        assertEquals(2, next.size());
        assertEquals(2, next.get(0).epoch());
        assertEquals(request.dialog().toSeq() + 1, next.get(0).dialog().fromSeq());
        assertEquals(
                summary("ship it"), next.get(0).compaction().previousSummary(), "incremental: carries the summary");
        assertEquals(next.get(0).requestId(), header.pending().requestId());
    }

    @Test
    void duplicateAndStaleResultsAreDroppedAndCounted() {
        fillOverThreshold("s1");
        LlmRequest request = requests().get(0);
        LlmResult ok = LlmResult.ok(request, summary("v1"), 1, T0);
        // Stale: an ID the session issues, for another epoch (the request's own ID with another epoch is forged).
        assertEquals(1, request.dialog().incarnation(), "the session began at offset 0");
        LlmResult stale = new LlmResult(
                SETTINGS.requestSecret().requestId("acme/s1#" + (request.epoch() + 5) + "@1"),
                request.epoch() + 5,
                LlmKind.COMPACT,
                "acme",
                "s1",
                io.reme.llm.LlmStatus.OK,
                summary("wrong"),
                null,
                1,
                T0,
                null,
                1);
        sendResult(stale, T0.plusSeconds(61));
        assertNotNull(header("s1").pending(), "a result with another epoch is not applied");
        sendResult(ok, T0.plusSeconds(62));
        int archived = driver.dialog().readValuesToList().size();
        sendResult(ok, T0.plusSeconds(63));
        sendResult(LlmResult.ok(request, summary("v2"), 1, T0), T0.plusSeconds(64));

        SessionHeader header = header("s1");
        assertEquals(summary("v1"), summaryOf("s1"));
        assertEquals(1, header.summaryVersion());
        assertTrue(driver.dialog().isEmpty(), "a duplicate archives nothing again (first time: " + archived + ")");
        assertEquals(2, header.counters().get(Counter.DUPLICATE_RESULTS));
        assertEquals(1, header.counters().get(Counter.STALE_RESULTS));
        assertEquals(1, header.counters().get(Counter.COMPACTIONS_APPLIED));
    }

    @Test
    void aFailedResultKeepsEveryMessageAndRetriesAfterTheBackoff() {
        fillOverThreshold("s1");
        LlmRequest request = requests().get(0);
        List<StoredMessage> before = live("s1");
        sendResult(LlmResult.failed(request, "HTTP 500 after 5 attempts", 5, T0), T0.plusSeconds(20));

        assertEquals(before, live("s1"), "every message kept, unchanged");
        assertTrue(driver.dialog().isEmpty());
        SessionHeader header = header("s1");
        assertNull(header.pending());
        assertEquals("", summaryOf("s1"));
        assertEquals("HTTP 500 after 5 attempts", header.compaction().lastFailure());
        assertEquals(1, header.counters().get(Counter.COMPACTIONS_FAILED));

        sendRaw("acme/s1", message("s1", "user", "within backoff" + words(10), T0.plusSeconds(30)), T0.plusSeconds(30));
        assertTrue(driver.requests().isEmpty(), "no new request within the backoff");
        sendRaw("acme/s1", message("s1", "user", "after backoff" + words(10), T0.plusSeconds(60)), T0.plusSeconds(60));
        List<LlmRequest> retried = requests();
        // The window (about 2,400 tokens) outgrew the 1,000-token model: the retry takes a span within
        // 0.9 x 1,000 tokens, which the first request already sent for a diary, so no DIARY request.
        assertEquals(1, retried.size());
        assertEquals(LlmKind.COMPACT, retried.get(0).kind());
        assertEquals(request.dialog().fromSeq(), retried.get(0).dialog().fromSeq());
        assertEquals(2, retried.get(0).epoch());
        assertFalse(retried.get(0).requestId().equals(request.requestId()));

        sendResult(LlmResult.ok(retried.get(0), summary("retried"), 1, T0), T0.plusSeconds(61));
        SessionHeader applied = header("s1");
        assertEquals(1, applied.summaryVersion());
        assertNull(applied.compaction().lastFailure(), "a later success clears the failure");
        assertNull(applied.compaction().lastFailureAt());
    }

    @Test
    void anInvalidSummaryIsNeverApplied() {
        fillOverThreshold("s1");
        LlmRequest request = requests().get(0);
        sendResult(LlmResult.ok(request, "[Compactor] failed: timeout", 1, T0), T0.plusSeconds(20));
        sendResult(
                LlmResult.ok(request, summary("x").replace("## Next Steps\n1. more\n", ""), 1, T0), T0.plusSeconds(21));
        SessionHeader header = header("s1");
        assertEquals("", summaryOf("s1"));
        assertEquals(6, live("s1").size());
        assertTrue(driver.dialog().isEmpty());
        assertEquals(1, header.counters().get(Counter.INVALID_SUMMARIES), "the second one is stale: request resolved");
        assertTrue(
                header.compaction().lastFailure().contains("missing section '## Goal'"),
                header.compaction().lastFailure());
    }

    @Test
    void aPendingRequestWithoutResultIsReissuedAfterTheTimeout() {
        fillOverThreshold("s1");
        LlmRequest first = requests().get(0);
        sendRaw(
                "acme/s1",
                message("s1", "user", "later" + words(5), T0.plus(Duration.ofMinutes(11))),
                T0.plus(Duration.ofMinutes(11)));
        List<LlmRequest> again = requests();
        // A span within 0.9 x 1,000 tokens, already sent for a diary with the first request: COMPACT only.
        assertEquals(1, again.size());
        assertEquals(first.dialog().fromSeq(), again.get(0).dialog().fromSeq());
        assertEquals(first.epoch() + 1, again.get(0).epoch());
        sendResult(LlmResult.ok(first, summary("late"), 1, T0), T0.plus(Duration.ofMinutes(12)));
        assertEquals("", summaryOf("s1"), "the abandoned request's late result is stale");
        assertEquals(1, header("s1").counters().get(Counter.COMPACTIONS_TIMED_OUT));
    }

    @Test
    void theMetricsHearOfEveryCompactionOutcomeAndDeadLetter() {
        fillOverThreshold("s1");
        LlmRequest first = driver.requests().readValuesToList().get(0);
        sendResult(LlmResult.failed(first, "HTTP 500 after 5 attempts", 5, T0), T0.plusSeconds(20));
        sendRaw(
                "acme/s1",
                message("s1", "user", "after the backoff" + words(10), T0.plusSeconds(60)),
                T0.plusSeconds(60));
        LlmRequest second = driver.requests().readValuesToList().get(0);
        sendResult(LlmResult.ok(second, "no structure at all", 1, T0), T0.plusSeconds(61));
        sendRaw(
                "acme/s1",
                message("s1", "user", "after the next backoff" + words(10), T0.plusSeconds(100)),
                T0.plusSeconds(100));
        assertEquals(
                LlmKind.COMPACT, driver.requests().readValuesToList().get(0).kind(), "a third request, never answered");
        Instant late = T0.plusSeconds(100).plus(Duration.ofMinutes(11));
        sendRaw("acme/s1", message("s1", "user", "much later" + words(10), late), late);
        LlmRequest fourth = driver.requests().readValuesToList().get(0);
        sendResult(LlmResult.ok(fourth, summary("done"), 1, late), late.plusSeconds(1));
        sendRaw("acme/s1", "not json", late);
        driver.results()
                .pipeInput(new TestRecord<>(
                        "acme/s1".getBytes(StandardCharsets.UTF_8), "{broken".getBytes(StandardCharsets.UTF_8), late));

        Map<Counter, Long> counters = header("s1").counters().values();
        assertEquals(counters.get(Counter.MESSAGES), reported.get("messages acme"));
        assertEquals(
                live("s1").stream().mapToLong(StoredMessage::tokens).sum() + dialogTokens(),
                reported.get("tokens acme"),
                "tokens of every message appended");
        assertEquals(counters.get(Counter.COMPACTIONS_REQUESTED), reported.get("acme REQUESTED"));
        assertTrue(reported.get("acme REQUESTED") >= 4, reported.toString());
        assertEquals(1, reported.get("acme FAILED"));
        assertEquals(1, reported.get("acme INVALID_SUMMARY"));
        assertEquals(1, reported.get("acme TIMED_OUT"));
        assertEquals(1, reported.get("acme APPLIED"));
        assertEquals(counters.get(Counter.COMPACTIONS_FAILED), reported.get("acme FAILED"));
        assertEquals(counters.get(Counter.INVALID_SUMMARIES), reported.get("acme INVALID_SUMMARY"));
        assertEquals(counters.get(Counter.COMPACTIONS_TIMED_OUT), reported.get("acme TIMED_OUT"));
        assertEquals(counters.get(Counter.COMPACTIONS_APPLIED), reported.get("acme APPLIED"));
        assertEquals(1, reported.get("dlq MALFORMED_JSON"));
        assertEquals(1, reported.get("dlq INVALID_RESULT"));
        assertEquals(2, driver.dlq().readRecordsToList().size(), "one report per dead letter");
    }

    /** Tokens of the archived messages, as counted when they arrived (nothing here is truncated). */
    private long dialogTokens() {
        return driver.dialog().readValuesToList().stream()
                .mapToLong(archived -> TOKENS.count(archived.message()))
                .sum();
    }

    private static String message(String session, String role, String content, Instant time) {
        return SessionDriver.message("acme", session, session + "-" + time.toEpochMilli(), role, content, time)
                .toString();
    }

    @Test
    void eachClassOfBadInputIsDeadLetteredWhileGoodMessagesFlow() {
        send("s1", "user", "good one");
        sendRaw("acme/s1", "not json", T0);
        sendRaw("acme/s1", "{\"tenant\":\"acme\",\"session\":\"s1\",\"role\":\"user\",\"content\":\"x\"}", T0);
        sendRaw("acme/s9", message("s1", "user", "x", T0), T0);
        sendRaw(
                "acme/../x",
                "{\"tenant\":\"acme\",\"session\":\"../x\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\"}",
                T0);
        sendRaw(
                "acme/s1",
                "{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"robot\",\"content\":\"x\"}",
                T0);
        sendRaw(
                "acme/s1",
                "{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"midi\"}]}",
                T0);
        sendRaw("acme/s1", message("s1", "user", "x".repeat(SETTINGS.input().maxMessageBytes()), T0), T0);
        send("s1", "assistant", "good two");
        driver.results()
                .pipeInput(new TestRecord<>(
                        "acme/s1".getBytes(StandardCharsets.UTF_8), "{broken".getBytes(StandardCharsets.UTF_8), T0));

        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        List<String> reasons = dead.stream()
                .map(r -> DeadLetterHeaders.read(r.headers(), DeadLetterHeaders.REASON))
                .toList();
        assertEquals(
                List.of(
                        "MALFORMED_JSON",
                        "MISSING_FIELD",
                        "KEY_MISMATCH",
                        "INVALID_ID",
                        "INVALID_ROLE",
                        "INVALID_CONTENT",
                        "TOO_LARGE",
                        "INVALID_RESULT"),
                reasons);
        TestRecord<byte[], byte[]> first = dead.get(0);
        assertEquals("not json", new String(first.value(), StandardCharsets.UTF_8), "original bytes kept");
        assertEquals("acme/s1", new String(first.key(), StandardCharsets.UTF_8));
        assertEquals(TOPICS.messages(), DeadLetterHeaders.read(first.headers(), DeadLetterHeaders.TOPIC));
        assertEquals("0", DeadLetterHeaders.read(first.headers(), DeadLetterHeaders.PARTITION));
        assertEquals("1", DeadLetterHeaders.read(first.headers(), DeadLetterHeaders.OFFSET));
        assertEquals(TOPICS.llmResults(), DeadLetterHeaders.read(dead.get(7).headers(), DeadLetterHeaders.TOPIC));
        assertFalse(DeadLetterHeaders.read(dead.get(2).headers(), DeadLetterHeaders.DETAIL)
                .isBlank());

        assertEquals(2, live("s1").size(), "only the good messages reached state");
        assertEquals(
                List.of("good one", "good two"),
                live("s1").stream()
                        .map(m -> ((Block.Text) m.message().content().get(0)).text())
                        .toList());
        assertNull(header("s9"));
    }

    @Test
    void largeToolOutputsAreCutStoredAndCutAgainWhenTheyAge() {
        StringBuilder big = new StringBuilder();
        for (int i = 1; big.length() < 50_000; i++) {
            big.append("line ").append(i).append(" of the build log\n");
        }
        send("s2", "user", "build it");
        sendTool("s2", "call_1", big.toString());
        var stored = driver.toolResults().readKeyValuesToList();
        assertEquals(1, stored.size());
        assertTrue(stored.get(0).key.startsWith("acme/"));
        assertEquals(big.toString(), stored.get(0).value, "the full output is kept aside");
        String id = stored.get(0).key.substring("acme/".length());

        StoredMessage toolMessage = live("s2").get(2);
        String recent = ((Block.ToolResult) toolMessage.message().content().get(0)).output();
        assertTrue(ToolResultTruncator.isTruncated(recent));
        assertTrue(recent.contains(ToolResultTruncator.storedPath(id)), "the notice names the stored output");
        assertTrue(recent.getBytes(StandardCharsets.UTF_8).length < 21_000);
        assertEquals(TOKENS.count(toolMessage.message()), toolMessage.tokens());

        send("s2", "assistant", "the build passed");
        StoredMessage aged = live("s2").get(2);
        String old = ((Block.ToolResult) aged.message().content().get(0)).output();
        assertTrue(old.getBytes(StandardCharsets.UTF_8).length < 2_600, "re-cut to the old limit");
        assertTrue(old.contains(ToolResultTruncator.storedPath(id)), "still names the same stored output");
        assertEquals(TOKENS.count(aged.message()), aged.tokens());
        long sum = live("s2").stream().mapToLong(StoredMessage::tokens).sum();
        assertEquals(sum, header("s2").messageTokens(), "totals follow the re-cut");
        assertTrue(driver.toolResults().isEmpty(), "re-cutting stores nothing new");
        assertEquals(2, header("s2").counters().get(Counter.TRUNCATED_OUTPUTS));
    }

    @Test
    void aSingleLineOutputIsStoredWholeOnceAndItsCutsNameIt() {
        String line = "{\"rows\":[" + "1,".repeat(25_000) + "1]}";
        send("s3", "user", "dump it");
        sendTool("s3", "call_1", line);
        var stored = driver.toolResults().readKeyValuesToList();
        assertEquals(1, stored.size());
        assertEquals(line, stored.get(0).value, "the whole line is kept aside");
        String path = ToolResultTruncator.storedPath(stored.get(0).key.substring("acme/".length()));
        String recent =
                ((Block.ToolResult) live("s3").get(2).message().content().get(0)).output();
        assertTrue(recent.contains(path), "the cut names the stored output");

        send("s3", "assistant", "done");
        String old = ((Block.ToolResult) live("s3").get(2).message().content().get(0)).output();
        assertTrue(old.getBytes(StandardCharsets.UTF_8).length < 2_600, "re-cut to the old limit");
        assertTrue(old.contains(path), "and still names it");
        assertTrue(driver.toolResults().isEmpty(), "the stored output is never replaced by a cut");
    }

    @Test
    void quietSessionsAreSentForADiaryOnceEachQuietSpell() {
        send("s5", "user", "short question");
        send("s5", "assistant", "short answer");
        driver.advanceWallClockTime(Duration.ofMinutes(10));
        assertTrue(driver.requests().isEmpty(), "not quiet long enough");
        driver.advanceWallClockTime(Duration.ofMinutes(25));
        List<LlmRequest> idle = requests();
        assertEquals(1, idle.size());
        assertEquals(LlmKind.DIARY, idle.get(0).kind());
        assertEquals(0, idle.get(0).dialog().fromSeq());
        assertEquals(1, idle.get(0).dialog().toSeq());
        assertEquals(
                List.of("short question", "short answer"),
                idle.get(0).dialog().messages().stream()
                        .map(m -> ((Block.Text) m.content().get(0)).text())
                        .toList());
        driver.advanceWallClockTime(Duration.ofHours(2));
        assertTrue(driver.requests().isEmpty(), "each quiet spell once");

        send("s5", "user", "follow-up");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        List<LlmRequest> next = requests();
        assertEquals(1, next.size());
        assertEquals(2, next.get(0).dialog().fromSeq(), "only what no diary covered yet");
        assertEquals(2, next.get(0).dialog().toSeq());
        assertEquals(3, live("s5").size(), "messages stay live: a diary does not compact");
    }

    @Test
    void aSessionQuietForTheRetentionIsArchivedAndDeleted() {
        send("s7", "user", "remember the blue deploy");
        send("s7", "assistant", "noted");
        send("s7", "user", "thanks");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        assertEquals(1, requests().size(), "the idle diary comes first");
        driver.advanceWallClockTime(Duration.ofDays(20));
        assertNotNull(header("s7"), "quiet for less than the retention");
        assertTrue(driver.dialog().isEmpty());

        driver.advanceWallClockTime(Duration.ofDays(11));
        List<ArchivedMessage> archived = driver.dialog().readValuesToList();
        assertEquals(
                List.of(0L, 1L, 2L),
                archived.stream().map(ArchivedMessage::seq).toList(),
                "every live message is archived, in order, before the state goes");
        assertEquals(
                "remember the blue deploy",
                ((Block.Text) archived.get(0).message().content().get(0)).text());
        assertTrue(archived.stream().allMatch(m -> m.summaryRequestId() == null), "archived by expiry, not a summary");
        assertNull(header("s7"));
        assertTrue(live("s7").isEmpty());
        assertEquals("", summaryOf("s7"));
        assertTrue(activityOf("s7").isEmpty(), "nothing left to sweep");
        driver.advanceWallClockTime(Duration.ofDays(40));
        assertTrue(driver.dialog().isEmpty(), "expires once");
        assertTrue(driver.requests().isEmpty());
    }

    @Test
    void aMessageBeforeTheRetentionEndsKeepsTheSessionAndAfterItStartsAFreshOne() {
        send("s8", "user", "first");
        driver.advanceWallClockTime(Duration.ofDays(20));
        send("s8", "user", "back again");
        driver.advanceWallClockTime(Duration.ofDays(20));
        assertEquals(2, live("s8").size(), "the clock restarted at the second message");
        assertTrue(driver.dialog().isEmpty());
        assertEquals(1, activityOf("s8").size(), "one index entry per session");

        driver.advanceWallClockTime(Duration.ofDays(11));
        assertEquals(2, driver.dialog().readValuesToList().size());
        assertNull(header("s8"));

        send("s8", "user", "a new start");
        SessionHeader fresh = header("s8");
        assertEquals(1, fresh.liveCount());
        assertEquals(TOKENS.count("a new start"), fresh.messageTokens());
        assertEquals(0, live("s8").get(0).seq());
    }

    @Test
    void aCompactionsDiaryRequestSkipsWhatAnIdleDiaryAlreadyCovered() {
        // ~200 tokens each: the fifth message crosses 950, and the cut falls before it.
        send("s6", "user", "question 0" + words(100));
        send("s6", "assistant", "answer 0" + words(100));
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        assertEquals(1, requests().size(), "idle diary for seq 0-1");
        send("s6", "user", "question 1" + words(100));
        send("s6", "assistant", "answer 1" + words(100));
        assertTrue(driver.requests().isEmpty());
        send("s6", "user", "question 2" + words(100));
        List<LlmRequest> emitted = requests();
        assertEquals(2, emitted.size());
        LlmRequest compact = emitted.get(0);
        LlmRequest diary = emitted.get(1);
        assertEquals(LlmKind.COMPACT, compact.kind());
        assertEquals(LlmKind.DIARY, diary.kind());
        assertEquals(0, compact.dialog().fromSeq());
        assertEquals(3, compact.dialog().toSeq());
        assertEquals(compact.requestId(), diary.requestId());
        assertEquals(2, diary.dialog().fromSeq(), "seq 0-1 were already in a diary");
        assertEquals(3, diary.dialog().toSeq());
        assertEquals(
                List.of(
                        compact.dialog().messages().get(2),
                        compact.dialog().messages().get(3)),
                diary.dialog().messages());
    }

    @Test
    void aRetriedMessageIsNotAppendedTwice() {
        String m = message("s3", "user", "hello", T0);
        sendRaw("acme/s3", m, T0);
        sendRaw("acme/s3", m, T0);
        assertEquals(1, live("s3").size());
        assertEquals(1, header("s3").counters().get(Counter.DUPLICATE_MESSAGES));
    }

    @Test
    void tenantPoliciesOverrideTheDefault() {
        SessionSettings strict = SETTINGS.withTenantPolicies(Map.of("acme", new ContextPolicy(400, 1.0, 50, 0)));
        driver.close();
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "test2");
        // A directory of its own: the default one is shared with every other run on the machine.
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = SessionDriver.of(strict, TOKENS, props, null);
        send("s4", "user", "q" + words(200));
        send("s4", "assistant", "a" + words(200));
        assertTrue(driver.requests().isEmpty(), "no valid cut yet: only one turn");
        send("s4", "user", "q2" + words(10));
        assertEquals(2, requests().size(), "380 tokens is over acme's 380-token threshold");
    }
}
