package io.reme.worker;

import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.message.Message;
import io.reme.metrics.PipelineMetrics;
import io.reme.metrics.PipelineMetrics.CallOutcome;
import io.reme.provider.ContextLengthExceededException;
import io.reme.provider.DiaryTask;
import io.reme.provider.ExtractTask;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.SummaryTask;
import io.reme.retry.RetryPolicy;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one request to its end: a valid summary, diary update or set of memory writes (OK), or FAILED once the attempts
 * are used up or the provider says retrying cannot help. Each provider call gets a timeout; retries
 * wait with exponential backoff and jitter; a refused summary is retried with the reason. Thread-safe.
 */
final class RequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    private static final Duration EDIT_TIMEOUT = Duration.ofSeconds(30);

    private final LlmClient client;
    private final TokenCounter tokens;
    private final WorkerSettings settings;
    private final DiaryDocuments documents;
    private final ExecutorService calls;
    private final RetryPolicy retry;
    private final Clock clock;
    private final PipelineMetrics metrics;
    private final MemoryMerger merger;

    RequestHandler(
            LlmClient client,
            TokenCounter tokens,
            WorkerSettings settings,
            DiaryDocuments documents,
            ExecutorService calls,
            RetryPolicy retry,
            Clock clock,
            PipelineMetrics metrics,
            MemoryLookup lookup) {
        // lookup null: memory extraction is off.
        this.client = client;
        this.tokens = tokens;
        this.settings = settings;
        this.documents = documents;
        this.calls = calls;
        this.retry = retry;
        this.clock = clock;
        this.metrics = metrics;
        this.merger = lookup == null ? null : new MemoryMerger(lookup);
    }

    /**
     * The attempts a request gets: the settings' count and backoff (full jitter), retrying the failures the
     * provider calls retryable (timeouts, 5xx, 429) and summaries refused as invalid.
     */
    static RetryPolicy retryPolicy(WorkerSettings settings) {
        return RetryPolicy.exponential(
                settings.maxAttempts(),
                settings.backoffBase(),
                settings.backoffMax(),
                e -> e instanceof LlmException llm && llm.retryable());
    }

    /**
     * How a request ended, with what the caller needs to report it and the memories it must write first, of
     * which {@code newMemoryIds} are new (not updates).
     */
    record Outcome(LlmResult result, int attempts, List<MemoryRecord> memories, Set<String> newMemoryIds) {
        Outcome(LlmResult result, int attempts) {
            this(result, attempts, List.of(), Set.of());
        }

        boolean isNew(MemoryRecord memory) {
            return newMemoryIds.contains(memory.id());
        }
    }

    Outcome handle(LlmRequest request) throws InterruptedException {
        return switch (request.kind()) {
            case COMPACT -> compact(request);
            case DIARY -> diary(request);
            case EXTRACT -> extract(request);
        };
    }

    private Outcome compact(LlmRequest request) throws InterruptedException {
        // The session's window sets the budget (the request carries it); the worker's own is the ceiling.
        int budget = request.compaction().summaryBudget() > 0
                ? Math.min(request.compaction().summaryBudget(), settings.maxSummaryTokens())
                : settings.maxSummaryTokens();
        SummaryTask task = new SummaryTask(
                request.dialog().messages(),
                request.compaction().previousSummary(),
                request.dialog().language(),
                budget,
                null,
                request.compaction().unansweredCalls());
        SummaryTask[] next = {task};
        int[] attempts = {0};
        try {
            String summary = retry.call(
                    attempt -> {
                        attempts[0] = attempt;
                        SummaryTask current = next[0];
                        long started = System.nanoTime();
                        String answer = call(LlmKind.COMPACT, () -> client.summarize(current))
                                .strip();
                        List<String> problems = SummaryFormat.problems(answer, tokens, budget);
                        metrics.llmCall(
                                LlmKind.COMPACT,
                                problems.isEmpty() ? CallOutcome.OK : CallOutcome.INVALID_OUTPUT,
                                System.nanoTime() - started);
                        if (!problems.isEmpty()) {
                            // Asked again with the reason, so the model can do better than the same answer.
                            next[0] = current.withRetryReason(String.join("; ", problems));
                            throw new LlmException("invalid summary: " + String.join("; ", problems), true, null);
                        }
                        return answer;
                    },
                    (attempt, e) -> {
                        if (retry.retries(e)) {
                            LOG.info(
                                    "compaction attempt failed tenant={} session={} requestId={} attempt={} error={}",
                                    request.dialog().tenant(),
                                    request.dialog().session(),
                                    request.requestId(),
                                    attempt,
                                    e.getMessage());
                        }
                    });
            return new Outcome(LlmResult.ok(request, summary, attempts[0], clock.instant()), attempts[0]);
        } catch (ContextLengthExceededException e) {
            return new Outcome(
                    LlmResult.failed(request, e.getMessage(), attempts[0], clock.instant(), LlmFailure.CONTEXT_LENGTH),
                    attempts[0]);
        } catch (LlmException e) {
            return retry.retries(e)
                    ? failed(request, e.getMessage() + " (after " + retry.maxAttempts() + " attempts)", attempts[0])
                    : failed(request, e.getMessage(), attempts[0]);
        }
    }

    private Outcome diary(LlmRequest request) throws InterruptedException {
        // A span can cross midnight: each conversation day has its own document.
        Map<LocalDate, List<Message>> days = new TreeMap<>();
        for (Message message : request.dialog().messages()) {
            days.computeIfAbsent(message.time().atZone(settings.zone()).toLocalDate(), d -> new ArrayList<>())
                    .add(message);
        }
        List<String> accounts = new ArrayList<>();
        int attempts = 0;
        for (Map.Entry<LocalDate, List<Message>> day : days.entrySet()) {
            DiaryTask task = new DiaryTask(
                    request.dialog().tenant(),
                    request.dialog().user(),
                    request.dialog().session(),
                    day.getKey(),
                    day.getValue(),
                    request.dialog().language());
            DayOutcome outcome = diaryDay(request, task);
            attempts += outcome.attempts();
            if (outcome.error() != null) {
                return new Outcome(
                        LlmResult.failed(request, outcome.error(), attempts, clock.instant(), outcome.failure()),
                        attempts);
            }
            accounts.add(outcome.account());
        }
        return new Outcome(LlmResult.ok(request, String.join("\n", accounts), attempts, clock.instant()), attempts);
    }

    private record DayOutcome(String account, String error, int attempts, LlmFailure failure) {
        DayOutcome(String account, String error, int attempts) {
            this(account, error, attempts, LlmFailure.ERROR);
        }
    }

    /**
     * The day's update refused as longer than the model's context: the diary is updated with each half of
     * the messages in turn (each half again if it is refused too), as sequential edits of the same document.
     * A single message the model refuses fails the request as {@link LlmFailure#CONTEXT_LENGTH}.
     */
    private DayOutcome diaryHalves(LlmRequest request, DiaryTask task, ContextLengthExceededException refusal, int used)
            throws InterruptedException {
        List<Message> messages = task.messages();
        if (messages.size() < 2) {
            return new DayOutcome(null, refusal.getMessage(), used, LlmFailure.CONTEXT_LENGTH);
        }
        int middle = messages.size() / 2;
        LOG.info(
                "diary span halved tenant={} session={} requestId={} date={} messages={}",
                task.tenant(),
                task.session(),
                request.requestId(),
                task.date(),
                messages.size());
        DayOutcome first = diaryDay(request, task.withMessages(messages.subList(0, middle)));
        if (first.error() != null) {
            return new DayOutcome(null, first.error(), used + first.attempts(), first.failure());
        }
        DayOutcome second = diaryDay(request, task.withMessages(messages.subList(middle, messages.size())));
        int attempts = used + first.attempts() + second.attempts();
        return second.error() != null
                ? new DayOutcome(null, second.error(), attempts, second.failure())
                : new DayOutcome(first.account() + "\n" + second.account(), null, attempts);
    }

    private DayOutcome diaryDay(LlmRequest request, DiaryTask task) throws InterruptedException {
        String lastError = null;
        int conflicts = 0;
        RetryPolicy.Attempts attempts = retry.attempts();
        while (attempts.next()) {
            int attempt = attempts.number();
            VersionedDocumentEditor editor = new VersionedDocumentEditor(task, documents);
            try {
                long started = System.nanoTime();
                String account = call(LlmKind.DIARY, () -> client.updateDiary(task, editor));
                metrics.llmCall(LlmKind.DIARY, CallOutcome.OK, System.nanoTime() - started);
                // Dated when the session asked for it: an edit of what an erasure removed since is refused as such.
                int lost = editor.commit(request.requestId(), request.createdAt(), EDIT_TIMEOUT);
                if (lost == 0) {
                    return new DayOutcome(account, null, attempt);
                }
                conflicts++;
                LOG.info(
                        "diary edit lost a race, retrying tenant={} user={} date={} requestId={} conflicts={}",
                        task.tenant(),
                        task.user(),
                        task.date(),
                        request.requestId(),
                        conflicts);
                if (conflicts > settings.maxDiaryConflicts()) {
                    return new DayOutcome(null, "diary edit lost " + conflicts + " races", attempt);
                }
                // A lost race is not the provider's failure: it has its own budget (maxDiaryConflicts).
                attempts.repeat();
            } catch (ContextLengthExceededException e) {
                return diaryHalves(request, task, e, attempt);
            } catch (LlmException e) {
                lastError = e.getMessage();
                if (!retry.retries(e)) {
                    return new DayOutcome(null, lastError, attempt);
                }
            } catch (TimeoutException e) {
                lastError = e.getMessage();
            }
        }
        return new DayOutcome(null, lastError + " (after " + attempts.number() + " attempts)", attempts.number());
    }

    /**
     * The three extractors run in parallel, each with its own retries; then each candidate is merged
     * with the nearest existing memories, one after the other, so two candidates of one request about
     * the same thing see each other.
     */
    private Outcome extract(LlmRequest request) throws InterruptedException {
        if (merger == null) {
            return new Outcome(LlmResult.ok(request, "extraction is off", 0, clock.instant()), 0);
        }
        List<MemoryType> types = List.of(MemoryType.PERSONAL, MemoryType.PROCEDURAL, MemoryType.TOOL);
        AtomicInteger attempts = new AtomicInteger();
        try {
            List<Future<List<MemoryCandidate>>> running = new ArrayList<>();
            for (MemoryType type : types) {
                ExtractTask task = new ExtractTask(
                        request.dialog().tenant(),
                        request.dialog().user(),
                        request.dialog().session(),
                        type,
                        request.dialog().messages(),
                        request.dialog().language());
                running.add(calls.submit(() -> extractHalving(request, task, attempts)));
            }
            List<MemoryCandidate> candidates = new ArrayList<>();
            for (Future<List<MemoryCandidate>> extractor : running) {
                candidates.addAll(extractor.get());
            }
            MemoryMerger.Merged merged = merger.merge(
                    request, candidates, task -> retrying(() -> client.mergeMemory(task), attempts), clock.instant());
            String account = "candidates=" + candidates.size() + " added=" + merged.added() + " updated="
                    + merged.updated() + " unchanged=" + merged.unchanged();
            return new Outcome(
                    LlmResult.ok(request, account, attempts.get(), clock.instant()),
                    attempts.get(),
                    merged.writes(),
                    merged.addedIds());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ContextLengthExceededException) {
                // One message alone is over the model's context: sending it again cannot succeed.
                return new Outcome(
                        LlmResult.failed(
                                request,
                                cause.getMessage(),
                                attempts.get(),
                                clock.instant(),
                                LlmFailure.CONTEXT_LENGTH),
                        attempts.get());
            }
            return failed(
                    request,
                    cause instanceof LlmException ? cause.getMessage() : "extractor failed: " + cause,
                    attempts.get());
        } catch (LlmException e) {
            return failed(request, e.getMessage(), attempts.get());
        }
    }

    /**
     * One extractor over the span; refused as longer than the model's context, over each half in turn
     * (halved again while refused), its candidates joined. A single message refused is rethrown.
     */
    private List<MemoryCandidate> extractHalving(LlmRequest request, ExtractTask task, AtomicInteger attempts)
            throws LlmException, InterruptedException {
        try {
            return retrying(() -> client.extractMemories(task), attempts);
        } catch (ContextLengthExceededException e) {
            List<Message> messages = task.messages();
            if (messages.size() < 2) {
                throw e;
            }
            LOG.info(
                    "extraction span halved tenant={} session={} requestId={} type={} messages={}",
                    task.tenant(),
                    task.session(),
                    request.requestId(),
                    task.type(),
                    messages.size());
            int middle = messages.size() / 2;
            List<MemoryCandidate> candidates =
                    new ArrayList<>(extractHalving(request, task.withMessages(messages.subList(0, middle)), attempts));
            candidates.addAll(
                    extractHalving(request, task.withMessages(messages.subList(middle, messages.size())), attempts));
            return candidates;
        }
    }

    /** A provider call with the timeout, retried with backoff while the failure is retryable. */
    private <T> T retrying(Callable<T> work, AtomicInteger attempts) throws LlmException, InterruptedException {
        try {
            return retry.call(attempt -> {
                attempts.incrementAndGet();
                long started = System.nanoTime();
                T answer = call(LlmKind.EXTRACT, work);
                metrics.llmCall(LlmKind.EXTRACT, CallOutcome.OK, System.nanoTime() - started);
                return answer;
            });
        } catch (LlmException e) {
            if (retry.retries(e)) {
                throw new LlmException(e.getMessage() + " (after " + retry.maxAttempts() + " attempts)", false, e);
            }
            throw e;
        }
    }

    private Outcome failed(LlmRequest request, String error, int attempts) {
        return new Outcome(LlmResult.failed(request, error, attempts, clock.instant()), attempts);
    }

    /**
     * Runs a provider call with the timeout; a timeout is a retryable failure and the call is cancelled.
     * Failed calls are reported here; a successful one by the caller, who knows whether the answer is usable.
     */
    private <T> T call(LlmKind kind, Callable<T> work) throws LlmException, InterruptedException {
        long started = System.nanoTime();
        Future<T> future = calls.submit(work);
        try {
            return future.get(settings.callTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            metrics.llmCall(kind, CallOutcome.TIMEOUT, System.nanoTime() - started);
            throw new LlmException("no answer within " + settings.callTimeout(), true, e);
        } catch (ExecutionException e) {
            metrics.llmCall(kind, CallOutcome.ERROR, System.nanoTime() - started);
            Throwable cause = e.getCause();
            if (cause instanceof LlmException llm) {
                throw llm;
            }
            throw new LlmException("provider error: " + cause, false, cause);
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        }
    }
}
