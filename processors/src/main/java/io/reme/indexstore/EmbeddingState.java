package io.reme.indexstore;

import org.apache.kafka.streams.query.Query;

/**
 * An interactive query for a {@link MemoryIndexStore}: the embedding profile its searches use, empty when
 * it never recorded one (an index of a version before profiles were recorded, or a new one before its
 * first switch).
 */
public record EmbeddingState() implements Query<String> {}
