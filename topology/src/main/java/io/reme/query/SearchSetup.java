package io.reme.query;

import io.reme.embedding.EmbeddingModel;
import io.reme.index.MemoryPartitioning;

/**
 * What search needs to know: the memories topic and its partition count, how tenants map to
 * partitions, the model that embeds queries (null: text search only) and the bounds on query text.
 */
public record SearchSetup(
        String memoriesTopic,
        int partitions,
        MemoryPartitioning partitioning,
        EmbeddingModel embeddings,
        QueryLimits limits) {}
