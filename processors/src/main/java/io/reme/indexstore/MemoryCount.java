package io.reme.indexstore;

import org.apache.kafka.streams.query.Query;

/**
 * An interactive query for a {@link MemoryIndexStore}: how many memories the partition's index holds,
 * of one tenant or (tenant null) of all.
 */
public record MemoryCount(String tenant) implements Query<Integer> {
    /** Every tenant's memories. */
    public MemoryCount() {
        this(null);
    }
}
