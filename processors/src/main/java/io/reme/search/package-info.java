/**
 * Memory search: {@link io.reme.search.MemoryRecord} (the value of the {@code memories} topic), a
 * Lucene index of them with BM25 (English and CJK) and HNSW kNN ({@link io.reme.search.MemoryIndex}),
 * and hybrid fusion ({@link io.reme.search.HybridFusion}). Library code: no Kafka, no network. (The
 * LoCoMo evidence-recall harness that measures it lives in the {@code bench} module.)
 *
 * <p>{@code MemoryIndex} is the one door: it opens, writes and commits the index. Behind it, package-private,
 * {@code MemorySchema} lays out a record's document, {@code MemorySearcher} holds the searchers and runs
 * the reads, {@code HybridSearch} builds and fuses one search's candidate lists, {@code ExactQueries} the
 * exact filters, {@code VectorDimensions} the dimension of each vector field, and {@code DocumentReader}
 * reads records back.
 */
package io.reme.search;
