package io.reme.session;

import io.reme.message.SafeId;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The small per-session record kept beside the live messages: window totals, the summary's size and
 * version, the pending compaction and counters. It is rewritten on every message, so it holds
 * neither messages nor the summary text (kept in its own store, written only when it changes).
 *
 * @param nextSeq sequence number the next message gets
 * @param firstLiveSeq oldest sequence number still live (everything before it is archived)
 * @param liveCount number of live messages
 * @param messageTokens tokens of the live messages
 * @param lastMessageId ID of the last appended message, to drop immediate producer retries
 * @param lastActiveMs processing time of the last append, for idle detection
 * @param diaryCoveredSeq the last sequence number whose diary update and memory extraction settled (succeeded,
 *     or were given up and dead-lettered), as were all before it (-1: none); spans in flight are kept apart
 *     ({@link DiarySpan})
 * @param recentToolSeqs live messages whose tool outputs still have the generous recent limit
 * @param planBlocked a plan found no valid cut; replanning waits for a new turn or a result
 * @param summaryTokens tokens of the current summary
 * @param epoch the last epoch issued to a request of this session
 * @param pending the compaction in flight, or null
 * @param nextAttemptAt no new compaction is planned before this time (backoff after a failure)
 * @param spanLimit most tokens a compaction span may take, learnt from the model refusing a longer
 *     prompt (0: only the policy's limit)
 */
public record SessionHeader(
        String tenant,
        String session,
        String user,
        long nextSeq,
        long firstLiveSeq,
        int liveCount,
        long messageTokens,
        String lastMessageId,
        Instant lastMessageAt,
        long lastActiveMs,
        long diaryCoveredSeq,
        List<Long> recentToolSeqs,
        boolean planBlocked,
        long summaryTokens,
        int summaryVersion,
        Instant lastSummaryAt,
        String lastResolvedRequestId,
        long epoch,
        PendingCompaction pending,
        Instant nextAttemptAt,
        String lastFailure,
        Instant lastFailureAt,
        SessionCounters counters,
        long spanLimit) {

    public SessionHeader {
        SafeId.require("tenant", tenant);
        SafeId.require("session", session);
        SafeId.require("user", user);
        recentToolSeqs = recentToolSeqs == null ? List.of() : List.copyOf(recentToolSeqs);
        counters = counters == null ? SessionCounters.zero() : counters;
    }

    public static SessionHeader empty(String tenant, String session, String user) {
        return new SessionHeader(
                tenant,
                session,
                user,
                0,
                0,
                0,
                0,
                null,
                null,
                0,
                -1,
                List.of(),
                false,
                0,
                0,
                null,
                null,
                0,
                null,
                null,
                null,
                null,
                SessionCounters.zero(),
                0);
    }

    public SessionKey key() {
        return new SessionKey(tenant, session);
    }

    /** A message was appended at {@code nextSeq}. */
    public SessionHeader withAppended(int tokens, String messageId, Instant at, long activeMs, List<Long> recentTools) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq + 1,
                liveCount == 0 ? nextSeq : firstLiveSeq,
                liveCount + 1,
                messageTokens + tokens,
                messageId,
                at,
                activeMs,
                diaryCoveredSeq,
                recentTools,
                planBlocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters.plus(SessionCounters.Counter.MESSAGES),
                spanLimit);
    }

    /** Live messages were rewritten in place (re-truncation), changing their token total by {@code delta}. */
    public SessionHeader withTokenDelta(long delta, List<Long> recentTools) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens + delta,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentTools,
                planBlocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters,
                spanLimit);
    }

    public SessionHeader withPending(PendingCompaction newPending) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentToolSeqs,
                false,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                newPending.epoch(),
                newPending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters,
                spanLimit);
    }

    public SessionHeader withPlanBlocked(boolean blocked) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentToolSeqs,
                blocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters,
                spanLimit);
    }

    /**
     * The pending compaction succeeded: the new summary replaces the old one, its span left the window,
     * and the last failure is cleared.
     */
    public SessionHeader withApplied(long newSummaryTokens, int archivedCount, long archivedTokens, Instant at) {
        Objects.requireNonNull(pending, "no pending compaction");
        List<Long> stillRecent =
                recentToolSeqs.stream().filter(seq -> seq > pending.toSeq()).toList();
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                pending.toSeq() + 1,
                liveCount - archivedCount,
                messageTokens - archivedTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                stillRecent,
                false,
                newSummaryTokens,
                summaryVersion + 1,
                at,
                pending.requestId(),
                epoch,
                null,
                nextAttemptAt,
                // The failure is over: a view showing it beside a fresh summary would send an operator looking.
                null,
                null,
                counters.plus(SessionCounters.Counter.COMPACTIONS_APPLIED),
                spanLimit);
    }

    /** The pending compaction failed (or timed out): keep every message, wait before trying again. */
    public SessionHeader withFailed(String reason, Instant at, Instant retryAt, SessionCounters.Counter counter) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentToolSeqs,
                false,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                pending == null ? lastResolvedRequestId : pending.requestId(),
                epoch,
                null,
                retryAt,
                reason,
                at,
                counters.plus(counter),
                spanLimit);
    }

    /** Compaction spans are held to {@code limit} tokens from now on (0: only the policy's limit). */
    public SessionHeader withSpanLimit(long limit) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentToolSeqs,
                planBlocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters,
                limit);
    }

    /**
     * The pending compaction got no result in time and is abandoned: like a failure, but the request
     * does not count as resolved, so its late result is stale rather than a duplicate.
     */
    public SessionHeader withTimedOut(String reason, Instant at) {
        return withFailed(reason, at, at, SessionCounters.Counter.COMPACTIONS_TIMED_OUT)
                .withLastResolved(lastResolvedRequestId);
    }

    private SessionHeader withLastResolved(String requestId) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentToolSeqs,
                planBlocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                requestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters,
                spanLimit);
    }

    /** Everything up to {@code seq} is in a diary and the memories (or dead-lettered). */
    public SessionHeader withDiaryCovered(long seq) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                Math.max(diaryCoveredSeq, seq),
                recentToolSeqs,
                planBlocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters,
                spanLimit);
    }

    public SessionHeader withCounter(SessionCounters.Counter counter, long amount) {
        return new SessionHeader(
                tenant,
                session,
                user,
                nextSeq,
                firstLiveSeq,
                liveCount,
                messageTokens,
                lastMessageId,
                lastMessageAt,
                lastActiveMs,
                diaryCoveredSeq,
                recentToolSeqs,
                planBlocked,
                summaryTokens,
                summaryVersion,
                lastSummaryAt,
                lastResolvedRequestId,
                epoch,
                pending,
                nextAttemptAt,
                lastFailure,
                lastFailureAt,
                counters.plus(counter, amount),
                spanLimit);
    }
}
