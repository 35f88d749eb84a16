package io.reme.index;

import org.apache.kafka.streams.query.Query;

/** An interactive query for a {@link MemoryIndexStore}: how many memories the partition's index holds. */
public record MemoryCount() implements Query<Integer> {}
