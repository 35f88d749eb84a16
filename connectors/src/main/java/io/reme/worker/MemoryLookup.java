package io.reme.worker;

import io.reme.provider.MergeTask;
import io.reme.search.MemoryType;
import java.util.List;

/**
 * Finds the existing memories a candidate is merged with: the tenant's memories of one type and
 * target nearest to a text, best first, each with its cosine similarity to the text when the index
 * has vectors. The worker's window onto the search store; implementations must be thread-safe.
 */
@FunctionalInterface
public interface MemoryLookup {
    /** No existing memories: every candidate is compared only with those of its own request. */
    MemoryLookup NONE = (tenant, type, target, text, k) -> List.of();

    List<MergeTask.Neighbour> nearest(String tenant, MemoryType type, String target, String text, int k);
}
