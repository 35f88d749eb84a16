package io.reme.session;

import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.MessageSpan;
import io.reme.message.Message;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What real time passing does to the sessions, run by a wall-clock punctuation: failed diary spans are
 * sent again after their backoff, compactions due again are re-planned, sessions quiet for their idle
 * period get a diary update for what no diary covered, and sessions quiet for their retention expire.
 * Used by the task's stream thread only.
 */
final class Sweeps {
    private static final Logger LOG = LoggerFactory.getLogger(Sweeps.class);

    private final TaskStores stores;
    private final SessionSettings settings;
    private final TenantSessionSettings tenants;
    private final ActivityIndex activity;
    private final DiarySpans diary;
    private final CompactionPlanner planner;
    private final Archiver archiver;

    Sweeps(
            TaskStores stores,
            SessionSettings settings,
            TenantSessionSettings tenants,
            ActivityIndex activity,
            DiarySpans diary,
            CompactionPlanner planner,
            Archiver archiver) {
        this.stores = stores;
        this.settings = settings;
        this.tenants = tenants;
        this.activity = activity;
        this.diary = diary;
        this.planner = planner;
        this.archiver = archiver;
    }

    /**
     * Sessions quiet for {@code idleAfter} get a diary update and a memory extraction for the live
     * messages no diary update has covered, so short conversations are remembered too; each quiet
     * spell is handled once, after which the session waits in the expiry index. Sessions quiet for
     * {@code retention} expire.
     */
    void sweep(long nowMs) {
        tenants.refresh(nowMs);
        diary.retryDue(nowMs);
        retryCompactions(nowMs);
        sweepIdle(nowMs);
        sweepExpired(nowMs);
    }

    /**
     * Plans again the compactions of sessions whose failed compaction's backoff is over or whose pending
     * one timed out, as a message would: a session that goes quiet after a failure must not stay over
     * its threshold (its served context within the limit only by holding older messages back).
     */
    private void retryCompactions(long nowMs) {
        Instant now = Instant.ofEpochMilli(nowMs);
        for (ActivityIndex.Entry entry : activity.retriesDue(nowMs)) {
            activity.delete(entry);
            SessionKey key = entry.session();
            SessionHeader header = stores.headers().get(key.key());
            if (header == null) {
                continue;
            }
            SessionHeader next = planner.maybeCompact(key, header, now, false, nowMs, tenants.of(key.tenant(), nowMs));
            if (!next.equals(header)) {
                stores.headers().put(key.key(), next);
            }
        }
    }

    private void sweepIdle(long nowMs) {
        // Up to the shortest idle period of any tenant; a session of a tenant with a longer one waits.
        for (ActivityIndex.Entry entry :
                activity.quietBefore(nowMs - tenants.shortestIdle().toMillis())) {
            SessionHeader header = due(entry, nowMs, SessionSettings.Lifetime::idleAfter);
            if (header == null) {
                continue;
            }
            SessionKey key = entry.session();
            activity.expireLater(key, entry.ms());
            long from = Math.max(header.window().firstLiveSeq(), diary.requestedSeq(key, header) + 1);
            long to = header.window().nextSeq() - 1;
            if (header.liveCount() == 0 || from > to) {
                continue;
            }
            List<Message> span = stores.messages(key, from, to);
            // Named for the session's incarnation too: the same span end recurs once an erased session is reused.
            String requestId = settings.requestSecret()
                    .requestId(
                            key.key() + "#idle#" + to + (header.incarnation() == 0 ? "" : "@" + header.incarnation()));
            LlmRequest request = LlmRequest.of(
                    requestId,
                    header.compaction().epoch(),
                    LlmKind.DIARY,
                    new LlmRequest.Dialog(
                            key.tenant(),
                            key.session(),
                            header.user(),
                            header.incarnation(),
                            from,
                            to,
                            MessageSpan.of(span),
                            settings.compacting().language()),
                    LlmRequest.Compaction.NONE,
                    Instant.ofEpochMilli(nowMs));
            diary.send(key, request, nowMs);
            LOG.info(
                    "idle session sent for diary tenant={} session={} requestId={} messages={}",
                    key.tenant(),
                    key.session(),
                    requestId,
                    span.size());
        }
    }

    /**
     * Deletes the state of sessions quiet for longer than the retention. Live messages that no
     * compaction archived are archived now (without a summary request ID), so expiry loses nothing
     * that was said; the summary is not archived, the diary already holds what it covered.
     */
    private void sweepExpired(long nowMs) {
        for (ActivityIndex.Entry entry :
                activity.expiringBefore(nowMs - tenants.shortestRetention().toMillis())) {
            SessionHeader header = due(entry, nowMs, SessionSettings.Lifetime::retention);
            if (header == null) {
                continue;
            }
            SessionKey key = entry.session();
            // Before archiving: a span kept by reference reads its messages from the store, and archiving
            // would first write each such span again with a copy of them, only for it to be deleted here.
            diary.giveUpAll(key, header, "session expired before the span succeeded", nowMs);
            Archiver.Archived archived = archiver.archive(
                    key,
                    header.compaction().incarnation(),
                    header.window().firstLiveSeq(),
                    Long.MAX_VALUE,
                    null,
                    nowMs);
            stores.summaries().delete(key.key());
            stores.recentIds().forget(key);
            stores.headers().delete(key.key());
            LOG.info(
                    "session expired tenant={} session={} archived={} quietSince={}",
                    key.tenant(),
                    key.session(),
                    archived.count(),
                    Instant.ofEpochMilli(header.lastActiveMs()));
        }
    }

    /**
     * The session of an index entry once it has been quiet for its tenant's {@code period}; the entry is
     * then removed. Null when it is not due yet (the entry stays), or when the session is gone or has
     * been active since (the entry is dropped, never acted on).
     */
    private SessionHeader due(
            ActivityIndex.Entry entry, long nowMs, Function<SessionSettings.Lifetime, Duration> period) {
        SessionKey key = entry.session();
        Duration quiet = period.apply(tenants.of(key.tenant(), nowMs).lifetime());
        if (entry.ms() > nowMs - quiet.toMillis()) {
            return null;
        }
        activity.delete(entry);
        SessionHeader header = stores.headers().get(key.key());
        return header == null || ActivityIndex.stale(header, entry) ? null : header;
    }
}
