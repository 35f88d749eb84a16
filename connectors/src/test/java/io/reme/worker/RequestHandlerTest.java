package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.metrics.PipelineMetrics;
import io.reme.metrics.PipelineMetrics.CallOutcome;
import io.reme.provider.ContextLengthExceededException;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.SummaryTask;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How one COMPACT request runs to its end against a scripted provider, without a broker: retries,
 * giving up, refusing invalid summaries and abandoning calls that take too long.
 */
class RequestHandlerTest {
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final Instant NOW = Instant.parse("2026-03-02T10:00:00Z");
    private static final int MAX_ATTEMPTS = 4;

    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "test-llm-call");
        thread.setDaemon(true);
        return thread;
    });

    /** Every provider call the handler reported, in order. */
    private final List<String> reportedCalls = new CopyOnWriteArrayList<>();

    private final PipelineMetrics metrics = new PipelineMetrics() {
        @Override
        public void llmCall(LlmKind kind, CallOutcome outcome, long nanos) {
            reportedCalls.add(kind + " " + outcome + (nanos >= 0 ? "" : " negative"));
        }
    };

    @AfterEach
    void stopCalls() {
        calls.shutdownNow();
    }

    /** A provider whose summary calls are answered, one after the other, by {@code script}. */
    private static final class ScriptedClient implements LlmClient {
        interface Step {
            String answer(SummaryTask task) throws LlmException, InterruptedException;
        }

        private final List<Step> script;
        private final AtomicInteger calls = new AtomicInteger();
        final List<SummaryTask> tasks = new CopyOnWriteArrayList<>();

        ScriptedClient(Step... script) {
            this.script = List.of(script);
        }

        int calls() {
            return calls.get();
        }

        @Override
        public String id() {
            return "scripted";
        }

        @Override
        public String summarize(SummaryTask task) throws LlmException {
            tasks.add(task);
            int call = calls.getAndIncrement();
            Step step = script.get(Math.min(call, script.size() - 1));
            try {
                return step.answer(task);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LlmException("interrupted", true, e);
            }
        }

        @Override
        public String updateDiary(DiaryTask task, DocumentEditor editor) {
            throw new AssertionError("no diary requests here");
        }
    }

    private RequestHandler handler(LlmClient client, Duration callTimeout) {
        WorkerSettings settings = new WorkerSettings(
                2, callTimeout, MAX_ATTEMPTS, Duration.ZERO, Duration.ZERO, 2000, 100, 5, ZoneId.of("UTC"));
        return new RequestHandler(
                client,
                TOKENS,
                settings,
                null,
                calls,
                RequestHandler.retryPolicy(settings),
                Clock.fixed(NOW, ZoneOffset.UTC),
                metrics,
                MemoryLookup.NONE);
    }

    private static LlmRequest compact() {
        Message message = new Message(
                "acme",
                "s1",
                "u1",
                "m1",
                Role.USER,
                null,
                NOW,
                List.of(new Block.Text("Please rotate the keys in /srv/keys/rotation.yaml.")));
        return new LlmRequest(
                "req-1",
                3,
                LlmKind.COMPACT,
                List.of(),
                new LlmRequest.Dialog("acme", "s1", "u1", 0, 0, 0, List.of(message), "en"),
                LlmRequest.Compaction.NONE,
                0,
                NOW);
    }

    static String validSummary(String goal) {
        return "## Goal\n- " + goal + "\n\n## Constraints & Preferences\n(none)\n\n## Progress\n### Done\n(none)\n\n"
                + "### In Progress\n(none)\n\n### Blocked\n(none)\n\n## Key Decisions\n(none)\n\n"
                + "## Next Steps\n1. Rotate the keys.\n\n## Critical Context\n- /srv/keys/rotation.yaml\n";
    }

    private static ScriptedClient.Step fail(String message, boolean retryable) {
        return task -> {
            throw new LlmException(message, retryable, null);
        };
    }

    @Test
    void retryableFailuresAreRetriedUpToMaxAttemptsThenFailWithTheLastError() throws Exception {
        AtomicInteger n = new AtomicInteger();
        ScriptedClient client = new ScriptedClient(task -> {
            throw new LlmException("HTTP 503 number " + n.incrementAndGet(), true, null);
        });
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        LlmResult result = outcome.result();
        assertEquals(LlmStatus.FAILED, result.status());
        assertEquals(MAX_ATTEMPTS, client.calls(), "one provider call per attempt, no more");
        assertEquals(MAX_ATTEMPTS, outcome.attempts());
        assertEquals(MAX_ATTEMPTS, result.attempts());
        assertTrue(
                result.error().contains("HTTP 503 number " + MAX_ATTEMPTS),
                "the last error is reported: " + result.error());
        assertEquals("", result.payload());
        assertEquals("req-1", result.requestId());
        assertEquals(3, result.epoch());
    }

    @Test
    void aRetryableFailureFollowedBySuccessIsOk() throws Exception {
        String summary = validSummary("Rotate the keys.");
        ScriptedClient client = new ScriptedClient(fail("HTTP 500", true), fail("HTTP 429", true), task -> summary);
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        assertEquals(LlmStatus.OK, outcome.result().status());
        assertEquals(3, outcome.attempts());
        assertEquals(summary.strip(), outcome.result().payload());
    }

    @Test
    void aNonRetryableFailureFailsAtOnce() throws Exception {
        ScriptedClient client =
                new ScriptedClient(fail("HTTP 401: bad key", false), task -> validSummary("never asked"));
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertEquals(1, client.calls(), "no retry after a non-retryable failure");
        assertEquals(1, outcome.attempts());
        assertTrue(
                outcome.result().error().contains("HTTP 401: bad key"),
                outcome.result().error());
    }

    @Test
    void aProviderBugIsNotRetried() throws Exception {
        ScriptedClient client = new ScriptedClient(task -> {
            throw new IllegalStateException("bug in the client");
        });
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertEquals(1, client.calls());
        assertTrue(
                outcome.result().error().contains("bug in the client"),
                outcome.result().error());
    }

    @Test
    void aSummaryOverTheRequestsBudgetIsRefusedAndRetriedWithTheReason() throws Exception {
        // The worker allows 2000 tokens, the session's window only 120: the window's budget holds.
        String padded =
                validSummary("Rotate the keys. " + "The rotation touches every service in the fleet. ".repeat(20));
        String valid = validSummary("Rotate the keys.");
        assertTrue(TOKENS.count(padded) > 120 && TOKENS.count(padded) < 2000, "padded: " + TOKENS.count(padded));
        assertTrue(TOKENS.count(valid) <= 120, "valid: " + TOKENS.count(valid));
        ScriptedClient client = new ScriptedClient(task -> padded, task -> valid);
        LlmRequest base = compact();
        LlmRequest request = new LlmRequest(
                base.requestId(),
                base.epoch(),
                base.kind(),
                List.of(),
                new LlmRequest.Dialog(
                        base.dialog().tenant(),
                        base.dialog().session(),
                        base.dialog().user(),
                        0,
                        base.dialog().fromSeq(),
                        base.dialog().toSeq(),
                        base.dialog().messages(),
                        "en"),
                new LlmRequest.Compaction("", 120, List.of("call_7")),
                0,
                NOW);

        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(request);

        assertEquals(LlmStatus.OK, outcome.result().status());
        assertEquals(valid.strip(), outcome.result().payload());
        assertEquals(2, client.calls());
        assertEquals(120, client.tasks.get(0).maxTokens(), "the prompt is given the window's budget");
        assertEquals(List.of("call_7"), client.tasks.get(0).unansweredCalls());
        String reason = client.tasks.get(1).retryReason();
        assertTrue(reason != null && reason.contains("the budget is 120"), "retried with the reason: " + reason);
    }

    @Test
    void withoutABudgetInTheRequestTheWorkersOwnApplies() throws Exception {
        ScriptedClient client = new ScriptedClient(task -> validSummary("Rotate the keys."));
        handler(client, Duration.ofSeconds(5)).handle(compact());
        assertEquals(2000, client.tasks.get(0).maxTokens());
    }

    @Test
    void aContextLengthRefusalFailsAtOnceAsItsOwnKind() throws Exception {
        ScriptedClient client = new ScriptedClient(
                task -> {
                    throw new ContextLengthExceededException("HTTP 400: maximum context length is 8192 tokens", null);
                },
                task -> validSummary("never asked"));
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertEquals(LlmFailure.CONTEXT_LENGTH, outcome.result().failure());
        assertEquals(1, client.calls(), "the same span is not sent again");
        assertTrue(outcome.result().error().contains("8192"), outcome.result().error());
    }

    @Test
    void otherFailuresAreOfKindError() throws Exception {
        ScriptedClient client = new ScriptedClient(fail("HTTP 401: bad key", false));
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());
        assertEquals(LlmFailure.ERROR, outcome.result().failure());
    }

    @Test
    void anInvalidSummaryIsRetriedWithTheReason() throws Exception {
        String missingDecisions = validSummary("Rotate the keys.").replace("## Key Decisions\n(none)\n\n", "");
        String valid = validSummary("Rotate the keys.");
        ScriptedClient client = new ScriptedClient(task -> missingDecisions, task -> valid);
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        assertEquals(LlmStatus.OK, outcome.result().status());
        assertEquals(2, outcome.attempts());
        assertEquals(valid.strip(), outcome.result().payload());
        assertNull(client.tasks.get(0).retryReason(), "the first attempt has no reason to retry");
        String reason = client.tasks.get(1).retryReason();
        assertTrue(
                reason != null && reason.contains("missing section '## Key Decisions'"),
                "the retry says what was wrong: " + reason);
        assertEquals(client.tasks.get(0).messages(), client.tasks.get(1).messages(), "the retry is the same task");
    }

    @Test
    void anInvalidSummaryIsNeverReturnedAsOk() throws Exception {
        String emptySection = validSummary("Rotate the keys.").replace("### Blocked\n(none)\n", "### Blocked\n");
        String overBudget = validSummary("word ".repeat(3000));
        ScriptedClient client =
                new ScriptedClient(task -> emptySection, task -> overBudget, task -> "no structure", task -> "");
        RequestHandler.Outcome outcome = handler(client, Duration.ofSeconds(5)).handle(compact());

        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertEquals(MAX_ATTEMPTS, client.calls());
        assertEquals("", outcome.result().payload());
        assertTrue(
                outcome.result().error().startsWith("invalid summary: the summary is empty"),
                "the last refusal is the error: " + outcome.result().error());
        assertTrue(
                client.tasks.get(1).retryReason().contains("subsection '### Blocked' is empty"),
                client.tasks.get(1).retryReason());
        assertTrue(
                client.tasks.get(2).retryReason().contains("tokens, the budget is 2000"),
                client.tasks.get(2).retryReason());
        assertTrue(
                client.tasks.get(3).retryReason().contains("missing section '## Goal'"),
                client.tasks.get(3).retryReason());
        for (String answer : List.of(emptySection, overBudget, "no structure")) {
            assertTrue(!SummaryFormat.problems(answer, TOKENS, 2000).isEmpty(), "the script's answers are invalid");
        }
    }

    @Test
    void aCallOverTheTimeoutIsAbandonedAndRetried() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        String valid = validSummary("Rotate the keys.");
        ScriptedClient client = new ScriptedClient(
                task -> {
                    try {
                        // A pause, not a wait: a provider that answers too late.
                        Thread.sleep(30_000);
                        return validSummary("too late");
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                },
                task -> valid);
        long start = System.nanoTime();
        RequestHandler.Outcome outcome = handler(client, Duration.ofMillis(300)).handle(compact());
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;

        assertEquals(LlmStatus.OK, outcome.result().status());
        assertEquals(valid.strip(), outcome.result().payload(), "the late answer is never used");
        assertEquals(2, outcome.attempts());
        assertEquals(2, client.calls());
        assertTrue(elapsedMs >= 300 && elapsedMs < 5_000, "waited for the timeout only: " + elapsedMs + " ms");
        assertTrue(interrupted.await(5, TimeUnit.SECONDS), "the abandoned call was cancelled (interrupted)");
    }

    @Test
    void callsThatAlwaysTimeOutFailAfterMaxAttempts() throws Exception {
        ScriptedClient client = new ScriptedClient(task -> {
            // A pause, not a wait: a provider that answers too late.
            Thread.sleep(30_000);
            return validSummary("too late");
        });
        RequestHandler.Outcome outcome = handler(client, Duration.ofMillis(100)).handle(compact());

        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertEquals(MAX_ATTEMPTS, client.calls());
        assertTrue(
                outcome.result().error().contains("no answer within PT0.1S"),
                outcome.result().error());
    }

    @Test
    void everyProviderCallIsReportedOnceWithHowItEnded() throws Exception {
        String valid = validSummary("Rotate the keys.");
        ScriptedClient client = new ScriptedClient(
                fail("HTTP 500", true),
                task -> "no structure",
                task -> {
                    // A pause, not a wait: a provider that answers too late.
                    Thread.sleep(30_000);
                    return valid;
                },
                task -> valid);
        RequestHandler.Outcome outcome = handler(client, Duration.ofMillis(200)).handle(compact());

        assertEquals(LlmStatus.OK, outcome.result().status());
        assertEquals(
                List.of("COMPACT ERROR", "COMPACT INVALID_OUTPUT", "COMPACT TIMEOUT", "COMPACT OK"), reportedCalls);
    }
}
