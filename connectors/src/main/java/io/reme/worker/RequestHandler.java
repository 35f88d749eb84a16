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
    private final Backoff backoff;
    private final Clock clock;
    private final PipelineMetrics metrics;
    private final MemoryMerger merger;

    RequestHandler(
            LlmClient client,
            TokenCounter tokens,
            WorkerSettings settings,
            DiaryDocuments documents,
            ExecutorService calls,
            Backoff backoff,
            Clock clock,
            PipelineMetrics metrics,
            MemoryLookup lookup) {
        // lookup null: memory extraction is off.
        this.client = client;
        this.tokens = tokens;
        this.settings = settings;
        this.documents = documents;
        this.calls = calls;
        this.backoff = backoff;
        this.clock = clock;
        this.metrics = metrics;
        this.merger = lookup == null ? null : new MemoryMerger(lookup);
    }

    /** How a request ended, with what the caller needs to report it and the memories it must write first. */
    record Outcome(LlmResult result, int attempts, List<MemoryRecord> memories) {
        Outcome(LlmResult result, int attempts) {
            this(result, attempts, List.of());
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
        int budget = request.summaryBudget() > 0
                ? Math.min(request.summaryBudget(), settings.maxSummaryTokens())
                : settings.maxSummaryTokens();
        SummaryTask task = new SummaryTask(
                request.messages(),
                request.previousSummary(),
                request.language(),
                budget,
                null,
                request.unansweredCalls());
        String lastError = null;
        for (int attempt = 1; attempt <= settings.maxAttempts(); attempt++) {
            sleep(backoff.before(attempt));
            SummaryTask current = task;
            try {
                long started = System.nanoTime();
                String summary =
                        call(LlmKind.COMPACT, () -> client.summarize(current)).strip();
                List<String> problems = SummaryFormat.problems(summary, tokens, budget);
                metrics.llmCall(
                        LlmKind.COMPACT,
                        problems.isEmpty() ? CallOutcome.OK : CallOutcome.INVALID_OUTPUT,
                        System.nanoTime() - started);
                if (problems.isEmpty()) {
                    return new Outcome(LlmResult.ok(request, summary, attempt, clock.instant()), attempt);
                }
                lastError = "invalid summary: " + String.join("; ", problems);
                task = task.withRetryReason(String.join("; ", problems));
            } catch (ContextLengthExceededException e) {
                return new Outcome(
                        LlmResult.failed(request, e.getMessage(), attempt, clock.instant(), LlmFailure.CONTEXT_LENGTH),
                        attempt);
            } catch (LlmException e) {
                lastError = e.getMessage();
                if (!e.retryable()) {
                    return failed(request, lastError, attempt);
                }
            }
            LOG.info(
                    "compaction attempt failed tenant={} session={} requestId={} attempt={} error={}",
                    request.tenant(),
                    request.session(),
                    request.requestId(),
                    attempt,
                    lastError);
        }
        return failed(request, lastError + " (after " + settings.maxAttempts() + " attempts)", settings.maxAttempts());
    }

    private Outcome diary(LlmRequest request) throws InterruptedException {
        // A span can cross midnight: each conversation day has its own document.
        Map<LocalDate, List<Message>> days = new TreeMap<>();
        for (Message message : request.messages()) {
            days.computeIfAbsent(message.time().atZone(settings.zone()).toLocalDate(), d -> new ArrayList<>())
                    .add(message);
        }
        List<String> accounts = new ArrayList<>();
        int attempts = 0;
        for (Map.Entry<LocalDate, List<Message>> day : days.entrySet()) {
            DiaryTask task = new DiaryTask(
                    request.tenant(),
                    request.user(),
                    request.session(),
                    day.getKey(),
                    day.getValue(),
                    request.language());
            DayOutcome outcome = diaryDay(request, task);
            attempts += outcome.attempts();
            if (outcome.error() != null) {
                return failed(request, outcome.error(), attempts);
            }
            accounts.add(outcome.account());
        }
        return new Outcome(LlmResult.ok(request, String.join("\n", accounts), attempts, clock.instant()), attempts);
    }

    private record DayOutcome(String account, String error, int attempts) {}

    private DayOutcome diaryDay(LlmRequest request, DiaryTask task) throws InterruptedException {
        String lastError = null;
        int attempt = 0;
        int conflicts = 0;
        while (attempt < settings.maxAttempts()) {
            attempt++;
            sleep(backoff.before(attempt));
            VersionedDocumentEditor editor = new VersionedDocumentEditor(task, documents);
            try {
                long started = System.nanoTime();
                String account = call(LlmKind.DIARY, () -> client.updateDiary(task, editor));
                metrics.llmCall(LlmKind.DIARY, CallOutcome.OK, System.nanoTime() - started);
                int lost = editor.commit(request.requestId(), clock.instant(), EDIT_TIMEOUT);
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
                attempt--;
            } catch (LlmException e) {
                lastError = e.getMessage();
                if (!e.retryable()) {
                    return new DayOutcome(null, lastError, attempt);
                }
            } catch (TimeoutException e) {
                lastError = e.getMessage();
            }
        }
        return new DayOutcome(null, lastError + " (after " + attempt + " attempts)", attempt);
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
                        request.tenant(),
                        request.user(),
                        request.session(),
                        type,
                        request.messages(),
                        request.language());
                running.add(calls.submit(() -> retrying(() -> client.extractMemories(task), attempts)));
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
                    LlmResult.ok(request, account, attempts.get(), clock.instant()), attempts.get(), merged.writes());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            return failed(
                    request,
                    cause instanceof LlmException ? cause.getMessage() : "extractor failed: " + cause,
                    attempts.get());
        } catch (LlmException e) {
            return failed(request, e.getMessage(), attempts.get());
        }
    }

    /** A provider call with the timeout, retried with backoff while the failure is retryable. */
    private <T> T retrying(Callable<T> work, AtomicInteger attempts) throws LlmException, InterruptedException {
        LlmException last = null;
        for (int attempt = 1; attempt <= settings.maxAttempts(); attempt++) {
            sleep(backoff.before(attempt));
            attempts.incrementAndGet();
            long started = System.nanoTime();
            try {
                T answer = call(LlmKind.EXTRACT, work);
                metrics.llmCall(LlmKind.EXTRACT, CallOutcome.OK, System.nanoTime() - started);
                return answer;
            } catch (LlmException e) {
                last = e;
                if (!e.retryable()) {
                    throw e;
                }
            }
        }
        throw new LlmException(last.getMessage() + " (after " + settings.maxAttempts() + " attempts)", false, last);
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

    private static void sleep(Duration duration) throws InterruptedException {
        if (!duration.isZero()) {
            Thread.sleep(duration.toMillis());
        }
    }
}
