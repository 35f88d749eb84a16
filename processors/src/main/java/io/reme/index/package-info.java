/**
 * The Lucene memory index as a Kafka Streams state store: attached read-only to the compacted
 * {@code memories} topic (its changelog), one index per task, committed with the Streams commit,
 * queried through interactive queries (IQv2) with {@link io.reme.index.MemorySearch}.
 */
package io.reme.index;
