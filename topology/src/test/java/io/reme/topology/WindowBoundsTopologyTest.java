package io.reme.topology;

import static io.reme.topology.SessionDriver.summary;
import static io.reme.topology.SessionDriver.words;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.context.ContextPolicy;
import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.provider.SummaryTask;
import io.reme.provider.offline.OfflineLlmClient;
import io.reme.session.SessionCounters.Counter;
import io.reme.session.SessionHeader;
import io.reme.session.SessionKey;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session window stays bounded under faults, driven record by record through the topology as
 * production wires it: a tool call that never gets its result, a summary that would outgrow a small
 * window, a backlog larger than one request may carry, and a model that refuses long prompts.
 */
class WindowBoundsTopologyTest {
    private static final TokenCounter TOKENS = SessionDriver.TOKENS;
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private static final String SESSION = "s1";

    private SessionDriver driver;
    private SessionSettings settings;
    private int sent;

    @TempDir
    Path stateDir;

    private void start(ContextPolicy policy) {
        settings = SessionDriver.settings(policy);
        driver = SessionDriver.of(settings, TOKENS, DriverProperties.of("window-bounds-test", stateDir), null);
    }

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.close();
        }
    }

    // ---- helpers ----

    private Instant now() {
        return T0.plusSeconds(sent);
    }

    private ObjectNode envelope(String role) {
        return SessionDriver.envelope("acme", SESSION, SESSION + "-" + sent, role)
                .put("time", now().toString());
    }

    private void send(String role, String content) {
        pipe(envelope(role).put("content", content));
    }

    /** An assistant message calling a tool; its result is sent separately, or never. */
    private void sendCall(String callId) {
        pipe(SessionDriver.withToolCall(envelope("assistant"), callId, "run_migration", "{\"target\":\"orders\"}"));
    }

    private void pipe(ObjectNode message) {
        driver.send(message, now());
        sent++;
    }

    private void sendResult(LlmResult result) {
        driver.sendResult(result, now());
    }

    /** The COMPACT requests emitted since the last read. */
    private List<LlmRequest> compactions() {
        return driver.requestsOf(LlmKind.COMPACT);
    }

    private SessionHeader header() {
        return driver.header("acme", SESSION);
    }

    /** What the context API serves for the session. */
    private SessionView view() {
        return SessionView.read(
                        driver.store(SessionStores.HEADERS),
                        driver.<String, StoredMessage>store(SessionStores.MESSAGES),
                        driver.<String, String>store(SessionStores.SUMMARIES),
                        new SessionKey("acme", SESSION),
                        settings.policyFor("acme"),
                        "o200k_base")
                .orElseThrow();
    }

    // ---- an unanswered tool call ----

    @Test
    void aToolCallWhoseResultNeverComesNoLongerBlocksCompaction() {
        // threshold floor(1000 x 1.0 x 0.95) = 950, keep 200; a call is given up after 2 new turns.
        start(new ContextPolicy(1000, 1.0, 200, 0, 2, 100_000, 1.0));
        send("user", "please migrate the orders table");
        sendCall("call_lost");
        // The result never comes (or comes with another id): the conversation goes on.
        for (int turn = 0; turn < 3; turn++) {
            send("user", "question " + turn + words(200));
            send("assistant", "answer " + turn + words(200));
        }

        List<LlmRequest> compact = compactions();
        assertEquals(1, compact.size(), "the window is over its threshold and the lost call does not pin it");
        LlmRequest request = compact.get(0);
        assertEquals(
                List.of("call_lost"), request.compaction().unansweredCalls(), "the request tells the summary about it");
        assertTrue(request.dialog().messages().stream()
                .anyMatch(m -> m.toolUseIds().contains("call_lost")));
        assertEquals(0, header().counters().get(Counter.NO_VALID_CUT));

        // The offline provider names it under Critical Context, and applying it warns once.
        String written = new OfflineLlmClient(TOKENS)
                .summarize(new SummaryTask(
                        request.dialog().messages(),
                        request.compaction().previousSummary(),
                        request.dialog().language(),
                        request.compaction().summaryBudget(),
                        null,
                        request.compaction().unansweredCalls()));
        assertTrue(SummaryFormat.section(written, "## ", "Critical Context").contains("call_lost"), written);
        sendResult(LlmResult.ok(request, written, 1, now()));
        SessionHeader header = header();
        assertEquals(request.requestId(), header.compaction().lastResolvedRequestId());
        assertEquals(1, header.summaryVersion());
        assertEquals(1, header.counters().get(Counter.UNANSWERED_CALLS));
        assertEquals(1L, view().compaction().counters().get(Counter.UNANSWERED_CALLS), "served with the context");
        assertTrue(view().messages().stream()
                .noneMatch(m -> m.message().toolUseIds().contains("call_lost")));
    }

    @Test
    void aRecentCallWithoutResultStillWaitsForIt() {
        start(new ContextPolicy(1000, 1.0, 200, 0, 2, 100_000, 1.0));
        send("user", "question" + words(200));
        send("assistant", "answer" + words(200));
        send("user", "please migrate the orders table" + words(200));
        sendCall("call_running");
        send("user", "meanwhile" + words(200));

        List<LlmRequest> compact = compactions();
        assertEquals(1, compact.size());
        assertEquals(List.of(), compact.get(0).compaction().unansweredCalls());
        assertTrue(
                compact.get(0).dialog().messages().stream()
                        .noneMatch(m -> m.toolUseIds().contains("call_running")),
                "a call one turn old is kept for its result");
    }

    // ---- the summary's budget and the served context ----

    @Test
    void aLongConversationInASmallWindowNeverServesMoreThanTheMaximumAndDoesNotCompactEveryTurn() {
        // The demo's window: 3,000 tokens, threshold floor(3000 x 0.7 x 0.95) = 1995, keep 500. The
        // summary's budget is (1995 - 500) / 2 = 747, below the configured 4,000.
        ContextPolicy policy = new ContextPolicy(3000, 0.7, 500, 0);
        start(policy);
        assertEquals(747, settings.summaryBudget("acme"));
        OfflineLlmClient offline = new OfflineLlmClient(TOKENS);
        int turns = 200;
        int compacted = 0;
        int lastCompactionTurn = -1;
        int closest = Integer.MAX_VALUE;
        long largestSummary = 0;
        long largestServed = 0;
        long coveredThrough = -1;
        for (int turn = 0; turn < turns; turn++) {
            int n = 1000 + turn;
            // Each turn brings facts the extractive summary keeps: tickets, paths, hosts, decisions.
            send(
                    "user",
                    "Ticket OPS-" + n + ": please update /srv/app/module" + n + "/config.yaml so that retries=" + turn
                            + ". Decision: roll out module" + n + " in wave " + turn + ". Next: verify host app-" + n
                            + ".");
            send(
                    "assistant",
                    "Done: updated module" + n + " with retries=" + turn + " and restarted app-" + n + " in "
                            + (turn % 50 + 1) + " seconds. ERROR module" + n + " health check failed with code "
                            + turn);
            for (LlmRequest request : compactions()) {
                assertTrue(
                        request.compaction().summaryBudget() > 0
                                && request.compaction().summaryBudget() <= 747,
                        "budget in the request");
                // What a worker does: the offline provider writes the summary within the request's budget.
                String written = offline.summarize(new SummaryTask(
                        request.dialog().messages(),
                        request.compaction().previousSummary(),
                        request.dialog().language(),
                        request.compaction().summaryBudget(),
                        null,
                        request.compaction().unansweredCalls()));
                sendResult(LlmResult.ok(request, written, 1, now()));
                coveredThrough = request.dialog().toSeq();
                compacted++;
                if (lastCompactionTurn >= 0) {
                    closest = Math.min(closest, turn - lastCompactionTurn);
                }
                lastCompactionTurn = turn;
            }
            SessionView view = view();
            long served = view.tokens().summary() + view.tokens().messages() + policy.reservedTokens();
            largestServed = Math.max(largestServed, served);
            largestSummary = Math.max(largestSummary, view.tokens().summary());
            assertTrue(served <= policy.maxInputLength(), "turn " + turn + " serves " + served + " tokens");
            assertEquals(TOKENS.count(view.summary()), view.tokens().summary());
            // The summary names the messages it was made from: every one before the live window, none of it.
            assertEquals(
                    coveredThrough < 0 ? null : new SessionView.SummarySource(0, coveredThrough, coveredThrough + 1),
                    view.summarySource(),
                    "turn " + turn);
        }
        assertTrue(largestSummary > 500, "the summary did fill its budget: " + largestSummary);
        assertTrue(largestSummary <= 747, "the summary stayed within its budget: " + largestSummary);
        assertTrue(compacted >= 5, "compacted " + compacted);
        assertTrue(compacted < turns / 4, "compacted " + compacted + " times in " + turns + " turns");
        assertTrue(closest >= 4, "two compactions only " + closest + " turns apart");
        assertEquals(0, header().counters().get(Counter.INVALID_SUMMARIES));
        System.out.printf(
                "window-bounds: %d turns, %d compactions, closest %d turns apart, largest summary %d, "
                        + "largest served %d of %d%n",
                turns, compacted, closest, largestSummary, largestServed, policy.maxInputLength());
    }

    @Test
    void duringAnOutageTheServedContextStaysWithinTheMaximumAndCatchesUpAfterwards() {
        ContextPolicy policy = new ContextPolicy(3000, 0.7, 500, 0);
        start(policy);
        OfflineLlmClient offline = new OfflineLlmClient(TOKENS);
        int mostOmitted = 0;
        for (int turn = 0; turn < 60; turn++) {
            // No worker answers: the first compaction stays in flight while the conversation goes on.
            send("user", "question " + turn + words(30));
            send("assistant", "answer " + turn + words(30));
            SessionView view = view();
            assertTrue(
                    view.tokens().total() + policy.reservedTokens() <= policy.maxInputLength(),
                    "turn " + turn + " serves " + view.tokens().total());
            mostOmitted = Math.max(mostOmitted, view.tokens().omittedMessages());
        }
        SessionHeader during = header();
        assertTrue(during.messageTokens() > policy.maxInputLength(), "the live window outgrew the model");
        assertTrue(mostOmitted > 0);
        assertTrue(view().messages().get(0).message().startsTurn(), "what is served starts with a turn");

        // The worker comes back: the backlog is compacted step by step and nothing is held back any more.
        List<LlmRequest> pending = compactions();
        for (int step = 0; step < 50 && !pending.isEmpty(); step++) {
            assertEquals(1, pending.size());
            LlmRequest request = pending.get(0);
            String written = offline.summarize(new SummaryTask(
                    request.dialog().messages(),
                    request.compaction().previousSummary(),
                    request.dialog().language(),
                    request.compaction().summaryBudget(),
                    null,
                    request.compaction().unansweredCalls()));
            sendResult(LlmResult.ok(request, written, 1, now()));
            pending = compactions();
        }
        assertTrue(pending.isEmpty());
        SessionView after = view();
        assertEquals(0, after.tokens().omittedMessages());
        assertTrue(after.tokens().total() + policy.reservedTokens() <= policy.maxInputLength());
    }

    @Test
    void aSummaryOverTheWindowsBudgetIsRefusedEvenIfAWorkerSendsIt() {
        start(SessionDriver.SMALL_WINDOW);
        for (int turn = 0; turn < 3; turn++) {
            send("user", "question " + turn + words(200));
            send("assistant", "answer " + turn + words(200));
        }
        LlmRequest request = compactions().get(0);
        assertEquals(375, request.compaction().summaryBudget(), "(950 - 200) / 2");
        String large = summary("goal" + words(400));
        assertTrue(TOKENS.count(large) > 375 && TOKENS.count(large) < 4000);

        sendResult(LlmResult.ok(request, large, 1, now()));

        SessionHeader header = header();
        assertEquals(0, header.summaryVersion(), "not applied");
        assertEquals(1, header.counters().get(Counter.INVALID_SUMMARIES));
        assertTrue(
                header.compaction().lastFailure().contains("the budget is 375"),
                header.compaction().lastFailure());
    }

    // ---- a backlog, and a model that refuses long prompts ----

    @Test
    void aBacklogIsCompactedInStepsNoneLargerThanTheSpanLimit() {
        // threshold floor(4000 x 1.0 x 0.95) = 3800, keep 200; one request carries at most 400 tokens.
        start(new ContextPolicy(4000, 1.0, 200, 0, 2, 16000, 0.1));
        // The first request goes out when the window crosses the threshold; its result is delayed (an
        // outage) while the conversation goes on, so twice the threshold piles up.
        while (header() == null || header().messageTokens() < 7600) {
            send("user", "question" + words(45));
            send("assistant", "answer" + words(45));
        }
        List<LlmRequest> first = compactions();
        assertEquals(1, first.size(), "one request in flight at a time");
        LlmRequest request = first.get(0);
        List<Long> spans = new ArrayList<>();
        for (int step = 0; step < 40 && request != null; step++) {
            long tokens = header().pending().tokens();
            spans.add(tokens);
            assertTrue(tokens <= 400, "step " + step + " carries " + tokens);
            sendResult(LlmResult.ok(request, summary("step " + step), 1, now()));
            List<LlmRequest> next = compactions();
            assertTrue(next.size() <= 1);
            if (!next.isEmpty()) {
                assertEquals(
                        request.dialog().toSeq() + 1,
                        next.get(0).dialog().fromSeq(),
                        "each step starts where the last ended");
            }
            request = next.isEmpty() ? null : next.get(0);
        }
        assertTrue(spans.size() >= 10, "a 7,600-token window brought under 3,800 in steps of at most 400: " + spans);
        SessionHeader header = header();
        assertNull(header.pending());
        assertFalse(
                settings.policyFor("acme").overThreshold(header.messageTokens(), header.summaryTokens()),
                "the backlog is gone: " + header.messageTokens());
    }

    @Test
    void aContextLengthRefusalHalvesTheNextSpanInsteadOfRetryingIt() {
        start(SessionDriver.SMALL_WINDOW);
        fillInShortTurns();
        LlmRequest first = compactions().get(0);
        long refused = header().pending().tokens();
        int refusedMessages = first.dialog().messages().size();
        assertTrue(refusedMessages >= 8, "the test needs a span of several turns: " + refusedMessages);

        sendResult(LlmResult.failed(
                first, "HTTP 400: maximum context length exceeded", 1, now(), LlmFailure.CONTEXT_LENGTH));
        SessionHeader failed = header();
        assertNull(failed.pending());
        assertEquals(refused / 2, failed.compaction().spanLimit());
        assertEquals(1, failed.counters().get(Counter.SPANS_SHRUNK));
        assertNotNull(failed.compaction().nextAttemptAt());

        // After the backoff the next request covers at most half of what was refused.
        sent += 60;
        send("user", "after the backoff");
        List<LlmRequest> retried = compactions();
        assertEquals(1, retried.size());
        LlmRequest second = retried.get(0);
        assertEquals(first.dialog().fromSeq(), second.dialog().fromSeq());
        assertTrue(
                header().pending().tokens() <= refused / 2,
                header().pending().tokens() + " tokens after " + refused + " were refused");
        assertTrue(second.dialog().messages().size() < refusedMessages);

        // The session keeps the smaller limit for the compactions that follow.
        sendResult(LlmResult.ok(second, summary("first half"), 1, now()));
        assertEquals(refused / 2, header().compaction().spanLimit());
    }

    /** Short turns (about 80 tokens) until the window crosses its threshold of 950. */
    private void fillInShortTurns() {
        for (int turn = 0; header() == null || header().pending() == null; turn++) {
            send("user", "question " + turn + words(20));
            send("assistant", "answer " + turn + words(20));
        }
    }

    @Test
    void anOrdinaryFailureDoesNotShrinkTheSpan() {
        start(SessionDriver.SMALL_WINDOW);
        fillInShortTurns();
        LlmRequest first = compactions().get(0);
        long tokens = header().pending().tokens();
        sendResult(LlmResult.failed(first, "HTTP 500", 5, now()));
        assertEquals(0, header().compaction().spanLimit());
        sent += 60;
        send("user", "after the backoff");
        compactions();
        assertFalse(header().pending().tokens() < tokens, "the same span is asked for again");
    }
}
