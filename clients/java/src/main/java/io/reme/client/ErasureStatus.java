package io.reme.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * How a user's or the tenant's erasure went: {@code complete} once every partition reported and the index merged
 * the erased memories out of its files.
 *
 * @param erasureId the erasure
 * @param tenant the tenant
 * @param user the user, null for a tenant erasure
 * @param requestedAt when it was requested
 * @param complete whether every part is done
 * @param removed what was removed, by kind
 * @param pendingSessionPartitions session partitions that have not reported yet
 * @param pendingDiaryPartitions diary partitions that have not reported yet
 * @param pendingMemoryPartitions memory index partitions that have not applied the tombstones yet
 * @param memoriesStillListed memories the index still lists (-1: not checked yet)
 * @param memoriesExpunged whether no text of the erased memories is left in the index's files
 * @param filesPending files of the user older than the request still in the workspace
 * @param status the path to poll
 * @param retained append-only topics that still hold the content, with the retention that bounds it
 */
public record ErasureStatus(
        String erasureId,
        String tenant,
        String user,
        Instant requestedAt,
        boolean complete,
        Removed removed,
        List<Integer> pendingSessionPartitions,
        List<Integer> pendingDiaryPartitions,
        List<Integer> pendingMemoryPartitions,
        long memoriesStillListed,
        boolean memoriesExpunged,
        List<String> filesPending,
        String status,
        Map<String, String> retained) {
    public ErasureStatus {
        pendingSessionPartitions = pendingSessionPartitions == null ? List.of() : List.copyOf(pendingSessionPartitions);
        pendingDiaryPartitions = pendingDiaryPartitions == null ? List.of() : List.copyOf(pendingDiaryPartitions);
        pendingMemoryPartitions = pendingMemoryPartitions == null ? List.of() : List.copyOf(pendingMemoryPartitions);
        filesPending = filesPending == null ? List.of() : List.copyOf(filesPending);
        retained = retained == null ? Map.of() : Map.copyOf(retained);
    }

    /**
     * What an erasure removed, by kind.
     *
     * @param memories memories tombstoned
     * @param sessions sessions deleted
     * @param messages live messages deleted
     * @param summaries summaries deleted
     * @param toolOutputs stored tool outputs tombstoned
     * @param documents diary documents tombstoned
     */
    public record Removed(
            long memories, long sessions, long messages, long summaries, long toolOutputs, long documents) {}
}
