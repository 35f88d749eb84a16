package io.reme.session;

import io.reme.context.ContextPlanner;
import io.reme.context.ContextPolicy;
import io.reme.context.Cut;
import io.reme.context.PlanEntry;
import io.reme.context.PlanLimits;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.MessageSpan;
import io.reme.message.Message;
import io.reme.metrics.PipelineMetrics;
import io.reme.session.SessionCounters.Counter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when a session is compacted and asks for it: when the window is over its threshold and
 * nothing is in flight, it plans a cut ({@link ContextPlanner}), sends the COMPACT request with the
 * span's diary request, and marks it pending; a request pending longer than the timeout is abandoned
 * first. Returns the header to write, and writes none itself. Used by the task's stream thread only.
 */
final class CompactionPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(CompactionPlanner.class);

    private final TaskStores stores;
    private final SessionSettings settings;
    private final SessionOutputs outputs;
    private final DiarySpans diary;
    private final ActivityIndex activity;

    CompactionPlanner(
            TaskStores stores,
            SessionSettings settings,
            SessionOutputs outputs,
            DiarySpans diary,
            ActivityIndex activity) {
        this.stores = stores;
        this.settings = settings;
        this.outputs = outputs;
        this.diary = diary;
        this.activity = activity;
    }

    /**
     * What a compaction's request ID is derived from: unique per session, incarnation and epoch, the same on
     * replay. Incarnation 0 (a session begun before incarnations) keeps the name it had, so requests in flight
     * across an upgrade are still answered.
     */
    static String requestName(SessionKey key, long incarnation, long epoch) {
        return incarnation == 0 ? key.key() + "#" + epoch : key.key() + "#" + epoch + "@" + incarnation;
    }

    /**
     * Requests a compaction when the window is over its threshold and nothing is in flight. A request
     * pending longer than the timeout is abandoned (its late result becomes stale) and re-planned.
     *
     * @param turnStarted whether a turn started since the last plan: a window whose plan found no valid
     *     cut is planned again only then
     * @param local the settings of the session's tenant
     */
    SessionHeader maybeCompact(
            SessionKey key,
            SessionHeader header,
            Instant now,
            boolean turnStarted,
            long timestamp,
            SessionSettings local) {
        PendingCompaction pending = header.pending();
        if (pending != null) {
            if (!now.isAfter(pending.requestedAt().plus(settings.compacting().pendingTimeout()))) {
                return header;
            }
            LOG.warn(
                    "compaction timed out tenant={} session={} requestId={} epoch={}",
                    key.tenant(),
                    key.session(),
                    pending.requestId(),
                    pending.epoch());
            header = header.withTimedOut(
                    "no result within " + settings.compacting().pendingTimeout(), now);
            outputs.compaction(key.tenant(), PipelineMetrics.Compaction.TIMED_OUT);
        }
        SessionHeader.Compaction state = header.compaction();
        if (state.nextAttemptAt() != null && now.isBefore(state.nextAttemptAt())) {
            return header;
        }
        ContextPolicy policy = local.policyFor(key.tenant());
        if (!policy.overThreshold(header.messageTokens(), header.summaryTokens())) {
            return header;
        }
        if (state.planBlocked() && !turnStarted) {
            return header;
        }
        List<StoredMessage> window = stores.window(key, header);
        List<PlanEntry> entries = window.stream().map(StoredMessage::planEntry).toList();
        Optional<Cut> cut = ContextPlanner.plan(
                entries,
                policy.keepBudget(header.summaryTokens()),
                PlanLimits.of(policy, header.summaryTokens(), state.spanLimit()));
        if (cut.isEmpty()) {
            // INFO when the window first blocks, DEBUG while it stays blocked turn after turn.
            if (state.planBlocked()) {
                LOG.debug(
                        "over threshold but still no valid cut tenant={} session={} liveTokens={}",
                        key.tenant(),
                        key.session(),
                        header.messageTokens());
            } else {
                LOG.info(
                        "over threshold but no valid cut tenant={} session={} liveTokens={} liveMessages={}",
                        key.tenant(),
                        key.session(),
                        header.messageTokens(),
                        header.liveCount());
            }
            return header.withPlanBlocked(true).withCounter(Counter.NO_VALID_CUT, 1);
        }
        List<Message> span = MessageSpan.of(window.subList(0, cut.get().compactCount()).stream()
                .map(StoredMessage::message)
                .toList());
        long epoch = state.epoch() + 1;
        String requestId = settings.requestSecret().requestId(requestName(key, header.incarnation(), epoch));
        long fromSeq = window.get(0).seq();
        long toSeq = cut.get().lastCompactedSeq();
        List<String> unanswered = List.copyOf(cut.get().unansweredCalls());
        LlmRequest compact = LlmRequest.of(
                requestId,
                epoch,
                LlmKind.COMPACT,
                new LlmRequest.Dialog(
                        key.tenant(),
                        key.session(),
                        header.user(),
                        header.incarnation(),
                        fromSeq,
                        toSeq,
                        span,
                        settings.compacting().language()),
                new LlmRequest.Compaction(stores.summary(key), local.summaryBudget(key.tenant()), unanswered),
                now);
        outputs.request(key, compact, timestamp);
        outputs.compaction(key.tenant(), PipelineMetrics.Compaction.REQUESTED);
        diary.requestWith(key, header, compact, timestamp);
        LOG.info(
                "compaction requested tenant={} session={} requestId={} epoch={} messages={} tokens={} keptTokens={} "
                        + "unansweredCalls={}",
                key.tenant(),
                key.session(),
                requestId,
                epoch,
                span.size(),
                cut.get().compactedTokens(),
                cut.get().keptTokens(),
                unanswered.size());
        activity.retryAt(key, now.plus(settings.compacting().pendingTimeout()));
        return header.withPending(new PendingCompaction(
                        requestId, epoch, fromSeq, toSeq, span.size(), cut.get().compactedTokens(), now, unanswered))
                .withCounter(Counter.COMPACTIONS_REQUESTED, 1);
    }
}
