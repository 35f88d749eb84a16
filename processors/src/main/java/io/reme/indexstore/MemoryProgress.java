package io.reme.indexstore;

import org.apache.kafka.streams.query.Query;

/**
 * An interactive query for a {@link MemoryIndexStore}: the offset of the last {@code memories}
 * record it applied (-1 before the first). A write at offset o is visible to reads once this is
 * at least o.
 */
public record MemoryProgress() implements Query<Long> {}
