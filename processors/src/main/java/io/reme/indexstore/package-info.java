/**
 * The Lucene memory index as a Kafka Streams state store: attached read-only to the compacted
 * {@code memories} topic (its changelog), one index per task, committed with the Streams commit,
 * queried through interactive queries (IQv2) with {@link io.reme.indexstore.MemorySearch} (ranked
 * search), {@link io.reme.indexstore.MemoryGet} (one memory by id), {@link io.reme.indexstore.MemoryList}
 * (filtered, sorted pages) and {@link io.reme.indexstore.MemoryProgress} (the offset applied so far, for
 * read-your-writes).
 */
package io.reme.indexstore;
