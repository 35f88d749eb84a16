/**
 * Memory search: {@link io.reme.search.MemoryRecord} (the value of the {@code memories} topic), a
 * Lucene index of them with BM25 (English and CJK) and HNSW kNN ({@link io.reme.search.MemoryIndex}),
 * and hybrid fusion ({@link io.reme.search.HybridFusion}). Library code: no Kafka, no network. (The
 * LoCoMo evidence-recall harness that measures it lives in the {@code bench} module.)
 */
package io.reme.search;
