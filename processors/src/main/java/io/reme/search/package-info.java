/**
 * Memory search: {@link io.reme.search.MemoryRecord} (the value of the {@code memories} topic), a
 * Lucene index of them with BM25 (English and CJK) and HNSW kNN ({@link io.reme.search.MemoryIndex}),
 * hybrid fusion ({@link io.reme.search.HybridFusion}) and the LoCoMo evidence-recall harness
 * ({@link io.reme.search.LocomoEval}). Library code: no Kafka, no network.
 */
package io.reme.search;
