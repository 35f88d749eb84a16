package io.reme.session;

import io.reme.message.SafeId;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The small per-session record kept beside the live messages: window totals, the summary's size and
 * version, the compaction state and counters. It is rewritten on every message, so it holds neither
 * messages nor the summary text (kept in its own store, written only when it changes).
 *
 * <p>Its parts are records of their own, each changed through its own methods, so no copy lists the
 * header's figures one after the other. How it is stored is {@link SessionHeaderSerde}'s business: the
 * stored form is flat, in the order the parts list their fields.
 *
 * @param window the live messages
 * @param last the last message appended
 * @param diaryCoveredSeq the last sequence number whose diary update and memory extraction settled (succeeded,
 *     or were given up and dead-lettered), as were all before it (-1: none); spans in flight are kept apart
 *     ({@link DiarySpan})
 * @param summary the current summary
 * @param compaction the compaction in flight and what became of the last ones
 */
public record SessionHeader(
        String tenant,
        String session,
        String user,
        Window window,
        LastMessage last,
        long diaryCoveredSeq,
        Summary summary,
        Compaction compaction,
        SessionCounters counters) {

    /**
     * The live messages.
     *
     * @param nextSeq sequence number the next message gets
     * @param firstLiveSeq oldest sequence number still live (everything before it is archived)
     * @param liveCount number of live messages
     * @param messageTokens tokens of the live messages
     * @param recentToolSeqs live messages whose tool outputs still have the generous recent limit
     */
    public record Window(
            long nextSeq, long firstLiveSeq, int liveCount, long messageTokens, List<Long> recentToolSeqs) {
        static final Window EMPTY = new Window(0, 0, 0, 0, List.of());

        public Window {
            recentToolSeqs = recentToolSeqs == null ? List.of() : List.copyOf(recentToolSeqs);
        }

        /** A message of {@code tokens} was appended at {@code nextSeq}. */
        Window appended(int tokens, List<Long> recentTools) {
            return new Window(
                    nextSeq + 1,
                    liveCount == 0 ? nextSeq : firstLiveSeq,
                    liveCount + 1,
                    messageTokens + tokens,
                    recentTools);
        }

        /** Live messages were rewritten in place, changing their token total by {@code delta}. */
        Window rewritten(long delta, List<Long> recentTools) {
            return new Window(nextSeq, firstLiveSeq, liveCount, messageTokens + delta, recentTools);
        }

        /** The live messages up to {@code toSeq}, {@code count} of {@code tokens}, left the window. */
        Window archivedThrough(long toSeq, int count, long tokens) {
            List<Long> stillRecent =
                    recentToolSeqs.stream().filter(seq -> seq > toSeq).toList();
            return new Window(nextSeq, toSeq + 1, liveCount - count, messageTokens - tokens, stillRecent);
        }
    }

    /**
     * The last message appended.
     *
     * @param id its ID, to drop immediate producer retries
     * @param at its time
     * @param activeMs the processor's clock when it was appended, for idle detection
     */
    public record LastMessage(String id, Instant at, long activeMs) {
        static final LastMessage NONE = new LastMessage(null, null, 0);
    }

    /**
     * The current summary.
     *
     * @param tokens its tokens
     * @param version how many compactions were applied
     * @param at when the last one was
     */
    public record Summary(long tokens, int version, Instant at) {
        static final Summary NONE = new Summary(0, 0, null);

        Summary next(long newTokens, Instant appliedAt) {
            return new Summary(newTokens, version + 1, appliedAt);
        }
    }

    /**
     * The compaction in flight and what became of the last ones.
     *
     * @param epoch the last epoch issued to a request of this session
     * @param pending the compaction in flight, or null
     * @param planBlocked a plan found no valid cut; replanning waits for a new turn or a result
     * @param lastResolvedRequestId the last request applied or failed, to tell its re-delivered result
     *     (a duplicate) from an older one (stale)
     * @param nextAttemptAt no new compaction is planned before this time (backoff after a failure)
     * @param lastFailure why the last compaction failed, until one is applied
     * @param lastFailureAt when it failed
     * @param spanLimit most tokens a compaction span may take, learnt from the model refusing a longer
     *     prompt (0: only the policy's limit)
     * @param incarnation which life of the session key this is: 1 + the offset of the message that began it
     *     (offsets only grow, so a session written again after its erasure never has an earlier one's), 0 for
     *     a session begun before incarnations existed. Request IDs name it ({@link CompactionPlanner#requestName}),
     *     so a result of an earlier life is never taken for the pending request of this one.
     */
    public record Compaction(
            long epoch,
            PendingCompaction pending,
            boolean planBlocked,
            String lastResolvedRequestId,
            Instant nextAttemptAt,
            String lastFailure,
            Instant lastFailureAt,
            long spanLimit,
            long incarnation) {
        static final Compaction NONE = begun(0);

        /** Nothing requested yet, in the session's incarnation {@code incarnation}. */
        static Compaction begun(long incarnation) {
            return new Compaction(0, null, false, null, null, null, null, 0, incarnation);
        }

        Compaction requested(PendingCompaction request) {
            return new Compaction(
                    request.epoch(),
                    request,
                    false,
                    lastResolvedRequestId,
                    nextAttemptAt,
                    lastFailure,
                    lastFailureAt,
                    spanLimit,
                    incarnation);
        }

        Compaction blocked(boolean blocked) {
            return new Compaction(
                    epoch,
                    pending,
                    blocked,
                    lastResolvedRequestId,
                    nextAttemptAt,
                    lastFailure,
                    lastFailureAt,
                    spanLimit,
                    incarnation);
        }

        /** The pending request was applied: the failure is over (a view showing it beside a fresh summary would send an operator looking). */
        Compaction applied() {
            Objects.requireNonNull(pending, "no pending compaction");
            return new Compaction(
                    epoch, null, false, pending.requestId(), nextAttemptAt, null, null, spanLimit, incarnation);
        }

        Compaction failed(String reason, Instant at, Instant retryAt) {
            return new Compaction(
                    epoch,
                    null,
                    false,
                    pending == null ? lastResolvedRequestId : pending.requestId(),
                    retryAt,
                    reason,
                    at,
                    spanLimit,
                    incarnation);
        }

        Compaction resolved(String requestId) {
            return new Compaction(
                    epoch,
                    pending,
                    planBlocked,
                    requestId,
                    nextAttemptAt,
                    lastFailure,
                    lastFailureAt,
                    spanLimit,
                    incarnation);
        }

        Compaction limited(long limit) {
            return new Compaction(
                    epoch,
                    pending,
                    planBlocked,
                    lastResolvedRequestId,
                    nextAttemptAt,
                    lastFailure,
                    lastFailureAt,
                    limit,
                    incarnation);
        }
    }

    public SessionHeader {
        SafeId.require("tenant", tenant);
        SafeId.require("session", session);
        SafeId.require("user", user);
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(last, "last");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(compaction, "compaction");
        counters = counters == null ? SessionCounters.zero() : counters;
    }

    public static SessionHeader empty(String tenant, String session, String user) {
        return begun(tenant, session, user, Compaction.NONE);
    }

    /**
     * A session begun by the message at {@code offset} of its input partition: its incarnation is {@code offset
     * + 1} ({@link Compaction#incarnation}); an unknown offset (below 0) gives 0, as before incarnations.
     */
    public static SessionHeader begunAt(String tenant, String session, String user, long offset) {
        return begun(tenant, session, user, offset < 0 ? Compaction.NONE : Compaction.begun(offset + 1));
    }

    private static SessionHeader begun(String tenant, String session, String user, Compaction compaction) {
        return new SessionHeader(
                tenant,
                session,
                user,
                Window.EMPTY,
                LastMessage.NONE,
                -1,
                Summary.NONE,
                compaction,
                SessionCounters.zero());
    }

    /** Which life of its key this session is ({@link Compaction#incarnation}). */
    public long incarnation() {
        return compaction.incarnation();
    }

    public SessionKey key() {
        return new SessionKey(tenant, session);
    }

    // ---- the figures a reader of the session asks for first -------------------------------------

    public int liveCount() {
        return window.liveCount();
    }

    public long messageTokens() {
        return window.messageTokens();
    }

    public long summaryTokens() {
        return summary.tokens();
    }

    public int summaryVersion() {
        return summary.version();
    }

    /** The processor's clock at the last append (0: none yet). */
    public long lastActiveMs() {
        return last.activeMs();
    }

    public Instant lastMessageAt() {
        return last.at();
    }

    /** The compaction in flight, or null. */
    public PendingCompaction pending() {
        return compaction.pending();
    }

    // ---- changes ---------------------------------------------------------------------------------

    /** A message was appended at {@code nextSeq}. */
    public SessionHeader withAppended(int tokens, String messageId, Instant at, long activeMs, List<Long> recentTools) {
        return new SessionHeader(
                tenant,
                session,
                user,
                window.appended(tokens, recentTools),
                new LastMessage(messageId, at, activeMs),
                diaryCoveredSeq,
                summary,
                compaction,
                counters.plus(SessionCounters.Counter.MESSAGES));
    }

    /** Live messages were rewritten in place (re-truncation), changing their token total by {@code delta}. */
    public SessionHeader withTokenDelta(long delta, List<Long> recentTools) {
        return with(window.rewritten(delta, recentTools));
    }

    public SessionHeader withPending(PendingCompaction newPending) {
        return with(compaction.requested(newPending));
    }

    public SessionHeader withPlanBlocked(boolean blocked) {
        return with(compaction.blocked(blocked));
    }

    /**
     * The pending compaction succeeded: the new summary replaces the old one, its span left the window,
     * and the last failure is cleared.
     */
    public SessionHeader withApplied(long newSummaryTokens, int archivedCount, long archivedTokens, Instant at) {
        PendingCompaction applied = Objects.requireNonNull(compaction.pending(), "no pending compaction");
        return new SessionHeader(
                tenant,
                session,
                user,
                window.archivedThrough(applied.toSeq(), archivedCount, archivedTokens),
                last,
                diaryCoveredSeq,
                summary.next(newSummaryTokens, at),
                compaction.applied(),
                counters.plus(SessionCounters.Counter.COMPACTIONS_APPLIED));
    }

    /** The pending compaction failed (or timed out): keep every message, wait before trying again. */
    public SessionHeader withFailed(String reason, Instant at, Instant retryAt, SessionCounters.Counter counter) {
        return with(compaction.failed(reason, at, retryAt)).withCounter(counter, 1);
    }

    /** Compaction spans are held to {@code limit} tokens from now on (0: only the policy's limit). */
    public SessionHeader withSpanLimit(long limit) {
        return with(compaction.limited(limit));
    }

    /**
     * The pending compaction got no result in time and is abandoned: like a failure, but the request
     * does not count as resolved, so its late result is stale rather than a duplicate.
     */
    public SessionHeader withTimedOut(String reason, Instant at) {
        SessionHeader failed = withFailed(reason, at, at, SessionCounters.Counter.COMPACTIONS_TIMED_OUT);
        return failed.with(failed.compaction.resolved(compaction.lastResolvedRequestId()));
    }

    /** Everything up to {@code seq} is in a diary and the memories (or dead-lettered). */
    public SessionHeader withDiaryCovered(long seq) {
        return new SessionHeader(
                tenant, session, user, window, last, Math.max(diaryCoveredSeq, seq), summary, compaction, counters);
    }

    public SessionHeader withCounter(SessionCounters.Counter counter, long amount) {
        return new SessionHeader(
                tenant,
                session,
                user,
                window,
                last,
                diaryCoveredSeq,
                summary,
                compaction,
                counters.plus(counter, amount));
    }

    private SessionHeader with(Window newWindow) {
        return new SessionHeader(
                tenant, session, user, newWindow, last, diaryCoveredSeq, summary, compaction, counters);
    }

    private SessionHeader with(Compaction newCompaction) {
        return new SessionHeader(
                tenant, session, user, window, last, diaryCoveredSeq, summary, newCompaction, counters);
    }
}
