package io.reme.worker;

import io.reme.index.MemoryPartitioning;
import java.util.Objects;

/**
 * What EXTRACT requests need beyond the LLM: the existing memories to merge with, and how
 * memories are spread over the partitions of {@code memories.pending} / {@code memories}.
 */
public record ExtractionSetup(MemoryLookup lookup, MemoryPartitioning partitioning) {
    public ExtractionSetup {
        Objects.requireNonNull(lookup, "lookup");
        Objects.requireNonNull(partitioning, "partitioning");
    }

    /** Workers without access to the search store: extraction merges within each request only. */
    public static ExtractionSetup withoutLookup(int tenantBuckets) {
        return new ExtractionSetup(MemoryLookup.NONE, new MemoryPartitioning(tenantBuckets));
    }
}
