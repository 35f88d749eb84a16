package io.reme.api.memory;

import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.ProfileModels;
import io.reme.indexstore.MemoryPartitioning;

/**
 * What search needs to know: the memories topic and its partition count, how tenants map to
 * partitions, the model that embeds queries (null: text search only), the models of older embedding
 * profiles that indexes not switched yet search with, and the bounds on query text.
 */
public record SearchSetup(
        String memoriesTopic,
        int partitions,
        MemoryPartitioning partitioning,
        EmbeddingModel embeddings,
        QueryLimits limits,
        ProfileModels profiles) {}
