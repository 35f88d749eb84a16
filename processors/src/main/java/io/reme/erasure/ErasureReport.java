package io.reme.erasure;

import java.time.Instant;

/**
 * What one partition of one processor removed for an {@link Erasure}: the session processor counts
 * sessions, live messages, summaries and tool-output tombstones; the diary processor counts documents
 * (diaries and {@code MEMORY.md}); the memory index counts the memories it tombstoned. Kept in the processor's report store under the erasure's key, the
 * latest erasure of a key replacing the one before.
 *
 * @param toolOutputs tombstones sent to {@code tool-results} for outputs the sessions could have stored
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
        long documents) {

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
                0);
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
                0);
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
                documents);
    }
}
