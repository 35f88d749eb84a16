package io.reme.worker;

import io.reme.indexstore.MemoryPartitioning;
import java.util.Objects;

/**
 * What EXTRACT requests need beyond the LLM: whether to run them at all (off: they are answered OK
 * at once, without a model call), the existing memories to merge with, and how memories are spread
 * over the partitions of {@code memories.pending} / {@code memories}, and the tenants' memory count
 * limits the new memories are held to.
 */
public record ExtractionSetup(
        boolean enabled, MemoryLookup lookup, MemoryPartitioning partitioning, MemoryQuota quota) {
    public ExtractionSetup {
        Objects.requireNonNull(lookup, "lookup");
        Objects.requireNonNull(partitioning, "partitioning");
        Objects.requireNonNull(quota, "quota");
    }

    /** Without memory count limits. */
    public ExtractionSetup(boolean enabled, MemoryLookup lookup, MemoryPartitioning partitioning) {
        this(enabled, lookup, partitioning, MemoryQuota.NONE);
    }

    public ExtractionSetup withQuota(MemoryQuota newQuota) {
        return new ExtractionSetup(enabled, lookup, partitioning, newQuota);
    }

    /** Workers without access to the search store: extraction merges within each request only. */
    public static ExtractionSetup withoutLookup(boolean enabled, int tenantBuckets) {
        return new ExtractionSetup(enabled, MemoryLookup.NONE, new MemoryPartitioning(tenantBuckets));
    }
}
