/**
 * The Lucene memory index as a Kafka Streams state store: attached read-only to the compacted
 * {@code memories} topic (its changelog), one index per task, committed with the Streams commit,
 * queried through interactive queries (IQv2) with {@link io.reme.index.MemorySearch} (ranked
 * search), {@link io.reme.index.MemoryGet} (one memory by id), {@link io.reme.index.MemoryList}
 * (filtered, sorted pages) and {@link io.reme.index.MemoryProgress} (the offset applied so far, for
 * read-your-writes).
 */
package io.reme.index;
