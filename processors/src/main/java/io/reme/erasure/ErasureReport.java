package io.reme.erasure;

import java.time.Instant;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What one partition of one processor removed for an {@link Erasure}: the session processor counts
 * sessions, live messages, summaries and tool-output tombstones; the diary processor counts documents
 * (diaries and {@code MEMORY.md}); the memory index counts the memories it tombstoned. Kept in the processor's report store under the erasure's key, the
 * latest erasure of a key replacing the one before.
 *
 * @param toolOutputs tombstones sent to {@code tool-results} for outputs the sessions could have stored
 * @param expunged of a memory partition's report: its index has merged away the erased memories, so no
 *     index file holds them any more (false until then, and in the other reports)
 */
public record ErasureReport(
        String erasureId,
        String tenant,
        String user,
        int partition,
        Instant requestedAt,
        Instant completedAt,
        long memories,
        long sessions,
        long messages,
        long summaries,
        long toolOutputs,
        long documents,
        boolean expunged) {

    public static ErasureReport sessions(
            Erasure erasure, int partition, Instant at, long sessions, long messages, long summaries, long tools) {
        return new ErasureReport(
                erasure.erasureId(),
                erasure.tenant(),
                erasure.user(),
                partition,
                erasure.requestedAt(),
                at,
                erasure.memories(),
                sessions,
                messages,
                summaries,
                tools,
                0,
                false);
    }

    public static ErasureReport memories(Erasure erasure, int partition, Instant at, long memories) {
        return new ErasureReport(
                erasure.erasureId(),
                erasure.tenant(),
                erasure.user(),
                partition,
                erasure.requestedAt(),
                at,
                memories,
                0,
                0,
                0,
                0,
                0,
                false);
    }

    /**
     * Whether this report's erasure makes {@code request} one already done: the same erasure, or one of the same
     * key requested at or after it. Such a request, signed as it is, is a replay (from the topic, or a capture),
     * and applying it again would erase what was written since under the same IDs.
     */
    public boolean supersedes(Erasure request) {
        return erasureId.equals(request.erasureId()) || !requestedAt.isBefore(request.requestedAt());
    }

    /**
     * The report among {@code reports} (keyed as the requests are) that makes {@code request} a replay
     * ({@link #supersedes}), or null when the request is a new erasure.
     */
    public static ErasureReport replaying(ReadOnlyKeyValueStore<String, ErasureReport> reports, Erasure request) {
        ErasureReport done = reports.get(request.key());
        return done != null && done.supersedes(request) ? done : null;
    }

    /** What the dead letter of a replayed {@code request} says. */
    public static String replayDetail(Erasure request) {
        return "erasure " + request.erasureId() + " was already applied (or a later one was): a replay";
    }

    /**
     * When the latest erasure of {@code user}'s data (theirs, or their whole tenant's) was requested, by the
     * reports of one partition; null when there was none. A signed record made at or before it belongs to the
     * data that erasure removed.
     */
    public static Instant lastErased(ReadOnlyKeyValueStore<String, ErasureReport> reports, String tenant, String user) {
        Instant last = null;
        for (String key : new String[] {tenant + "/" + user, tenant + "/" + Erasure.ALL_USERS}) {
            ErasureReport report = reports.get(key);
            if (report != null && (last == null || report.requestedAt().isAfter(last))) {
                last = report.requestedAt();
            }
        }
        return last;
    }

    /** This memory partition's report once its index has merged the erased memories away. */
    public ErasureReport withExpunged(Instant at) {
        return new ErasureReport(
                erasureId,
                tenant,
                user,
                partition,
                requestedAt,
                at,
                memories,
                sessions,
                messages,
                summaries,
                toolOutputs,
                documents,
                true);
    }

    public static ErasureReport documents(Erasure erasure, int partition, Instant at, long documents) {
        return new ErasureReport(
                erasure.erasureId(),
                erasure.tenant(),
                erasure.user(),
                partition,
                erasure.requestedAt(),
                at,
                erasure.memories(),
                0,
                0,
                0,
                0,
                documents,
                false);
    }
}
