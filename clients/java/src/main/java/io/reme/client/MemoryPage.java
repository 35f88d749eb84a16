package io.reme.client;

import java.util.List;

/**
 * One page of {@code GET /v1/memories}.
 *
 * @param memories the page's memories
 * @param nextCursor the cursor of the next page, null on the last
 * @param partial whether a partition did not answer
 * @param missingPartitions the partitions that did not
 */
public record MemoryPage(List<Memory> memories, String nextCursor, boolean partial, List<Integer> missingPartitions) {
    public MemoryPage {
        memories = memories == null ? List.of() : List.copyOf(memories);
        missingPartitions = missingPartitions == null ? List.of() : List.copyOf(missingPartitions);
    }
}
