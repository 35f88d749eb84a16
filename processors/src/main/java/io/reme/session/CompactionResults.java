package io.reme.session;

import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.metrics.PipelineMetrics;
import io.reme.session.SessionCounters.Counter;
import io.reme.summary.SummaryFormat;
import io.reme.tokens.TokenCounter;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the answer to a session's pending compaction: a valid summary replaces the old one and the
 * span is archived; a failure or an invalid summary keeps every message and backs off (a span the
 * model refused as too long is halved); an answer to anything but the pending request is counted and
 * dropped. Then the session is planned again. Writes the header. Used by the task's stream thread only.
 */
final class CompactionResults {
    private static final Logger LOG = LoggerFactory.getLogger(CompactionResults.class);

    private final TaskStores stores;
    private final SessionSettings settings;
    private final TenantSessionSettings tenants;
    private final TokenCounter tokens;
    private final SessionOutputs outputs;
    private final Archiver archiver;
    private final CompactionPlanner planner;
    private final ActivityIndex activity;

    CompactionResults(
            TaskStores stores,
            SessionSettings settings,
            TenantSessionSettings tenants,
            TokenCounter tokens,
            SessionOutputs outputs,
            Archiver archiver,
            CompactionPlanner planner,
            ActivityIndex activity) {
        this.stores = stores;
        this.settings = settings;
        this.tenants = tenants;
        this.tokens = tokens;
        this.outputs = outputs;
        this.archiver = archiver;
        this.planner = planner;
        this.activity = activity;
    }

    /** Whether a result may be applied ({@link #check}). */
    enum Verdict {
        AUTHENTIC,
        /** Not signed by the workers, or naming a request no incarnation of the session was issued. */
        FORGED,
        /** Signed, but of a request of the session's earlier life, before it was erased and written again. */
        EARLIER_INCARNATION
    }

    /**
     * Whether a result may be applied: it carries the workers' signature ({@code signed}) and, for a
     * COMPACT result, names a request this deployment issued for its epoch in the session's current
     * incarnation (the ID is keyed by the request secret). A forged one, and a signed one of an earlier
     * incarnation (made before the session was erased), are counted and logged, and must not be applied.
     */
    Verdict check(SessionKey key, LlmResult result, boolean signed) {
        SessionHeader header = stores.headers().get(key.key());
        boolean issued = signed
                && (result.kind() != LlmKind.COMPACT
                        || settings.requestSecret()
                                .issued(
                                        CompactionPlanner.requestName(key, result.incarnation(), result.epoch()),
                                        result.requestId()));
        if (issued && (header == null || header.incarnation() == result.incarnation())) {
            return Verdict.AUTHENTIC;
        }
        long incarnation = header == null ? 0 : header.incarnation();
        if (issued) {
            // A request this deployment issued, for the session's life before it was erased and written again.
            LOG.warn(
                    "result of an earlier incarnation refused tenant={} session={} requestId={} epoch={}"
                            + " incarnation={} current={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    result.epoch(),
                    result.incarnation(),
                    incarnation);
            stores.headers().put(key.key(), header.withCounter(Counter.EARLIER_RESULTS, 1));
            return Verdict.EARLIER_INCARNATION;
        }
        LOG.warn(
                "forged result refused tenant={} session={} requestId={} epoch={} signed={}",
                key.tenant(),
                key.session(),
                result.requestId(),
                result.epoch(),
                signed);
        if (header != null) {
            stores.headers().put(key.key(), header.withCounter(Counter.FORGED_RESULTS, 1));
        }
        return Verdict.FORGED;
    }

    /** Applies a COMPACT result if it answers the pending request; anything else is counted and dropped. */
    void apply(SessionKey key, SessionHeader header, LlmResult result, long timestamp, long processingMs) {
        PendingCompaction pending = header.pending();
        if (pending == null || !pending.matches(result.requestId(), result.epoch())) {
            boolean duplicate = result.requestId().equals(header.compaction().lastResolvedRequestId());
            LOG.debug(
                    "{} result dropped tenant={} session={} requestId={} epoch={}",
                    duplicate ? "duplicate" : "stale",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    result.epoch());
            stores.headers()
                    .put(
                            key.key(),
                            header.withCounter(duplicate ? Counter.DUPLICATE_RESULTS : Counter.STALE_RESULTS, 1));
            return;
        }
        Instant now = Instant.ofEpochMilli(timestamp);
        if (result.status() == LlmStatus.FAILED) {
            failed(key, header, pending, result, now);
            return;
        }
        SessionSettings local = tenants.of(key.tenant(), processingMs);
        List<String> problems = SummaryFormat.problems(result.payload(), tokens, local.summaryBudget(key.tenant()));
        if (!problems.isEmpty()) {
            String problem = String.join("; ", problems);
            LOG.warn(
                    "invalid summary rejected tenant={} session={} requestId={} problem={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    problem);
            Instant retryAt = now.plus(settings.compacting().retryBackoff());
            stores.headers()
                    .put(
                            key.key(),
                            header.withFailed("invalid summary: " + problem, now, retryAt, Counter.INVALID_SUMMARIES));
            activity.retryAt(key, retryAt);
            outputs.compaction(key.tenant(), PipelineMetrics.Compaction.INVALID_SUMMARY);
            return;
        }
        Archiver.Archived archived = archiver.archive(
                key,
                header.compaction().incarnation(),
                pending.fromSeq(),
                pending.toSeq(),
                pending.requestId(),
                timestamp);
        stores.summaries().put(key.key(), result.payload());
        header = header.withApplied(tokens.count(result.payload()), archived.count(), archived.tokens(), now);
        if (!pending.unansweredCalls().isEmpty()) {
            // Said once, here: the calls have left the window with this compaction and cannot come back.
            LOG.warn(
                    "tool calls compacted without their results tenant={} session={} requestId={} calls={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    String.join(",", pending.unansweredCalls()));
            header = header.withCounter(
                    Counter.UNANSWERED_CALLS, pending.unansweredCalls().size());
        }
        outputs.compaction(key.tenant(), PipelineMetrics.Compaction.APPLIED);
        LOG.info(
                "compaction applied tenant={} session={} requestId={} epoch={} archived={} archivedTokens={} "
                        + "summaryTokens={} liveTokens={}",
                key.tenant(),
                key.session(),
                result.requestId(),
                result.epoch(),
                archived.count(),
                archived.tokens(),
                header.summaryTokens(),
                header.messageTokens());
        header = planner.maybeCompact(key, header, now, true, timestamp, local);
        stores.headers().put(key.key(), header);
    }

    /** The worker gave up: every message stays, and the next plan waits for the backoff. */
    private void failed(
            SessionKey key, SessionHeader header, PendingCompaction pending, LlmResult result, Instant now) {
        LOG.warn(
                "compaction failed tenant={} session={} requestId={} attempts={} failure={} error={}",
                key.tenant(),
                key.session(),
                result.requestId(),
                result.attempts(),
                result.failure(),
                result.error());
        header = header.withFailed(
                String.valueOf(result.error()),
                now,
                now.plus(settings.compacting().retryBackoff()),
                Counter.COMPACTIONS_FAILED);
        if (result.failure() == LlmFailure.CONTEXT_LENGTH) {
            // The same span would be refused again: the next one (after the backoff) is half as long.
            long limit = Math.max(1, pending.tokens() / 2);
            LOG.warn(
                    "compaction span halved tenant={} session={} requestId={} refusedTokens={} spanLimit={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    pending.tokens(),
                    limit);
            header = header.withSpanLimit(limit).withCounter(Counter.SPANS_SHRUNK, 1);
        }
        stores.headers().put(key.key(), header);
        activity.retryAt(key, header.compaction().nextAttemptAt());
        outputs.compaction(key.tenant(), PipelineMetrics.Compaction.FAILED);
    }
}
