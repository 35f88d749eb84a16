package io.reme.erasure;

import java.time.Instant;

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
