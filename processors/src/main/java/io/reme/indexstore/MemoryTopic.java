package io.reme.indexstore;

import io.reme.json.Json;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * How a memory is written to the {@code memories} topic or its {@code memories.pending} twin, whoever writes it (the
 * API to the first, the extraction workers to the second): keyed {@code tenant/id} ({@link MemoryKey}), in the
 * partition {@link MemoryPartitioning} gives that key over the topic's partitions, valued with the memory's JSON, or
 * with nothing to delete it. The embedder forwards a pending record to {@code memories} under the key and partition
 * it was written with, and the re-embedder rewrites a record where it is, so every record of both topics is framed
 * here. The index trusts the key for the tenant, and a search asks only the partitions that can hold the tenant's
 * memories, so a record framed any other way would be skipped or never found.
 */
public record MemoryTopic(String name, int partitions, MemoryPartitioning partitioning) {
    public MemoryTopic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(partitioning, "partitioning");
        if (partitions < 1) {
            throw new IllegalArgumentException("a memory topic has at least one partition, got " + partitions);
        }
    }

    /** The partition that holds memory {@code key}. */
    public int partition(MemoryKey key) {
        return partitioning.partition(key.tenant(), key.id(), partitions);
    }

    /** The record that writes {@code memory} (a new one or a new version). */
    public ProducerRecord<String, byte[]> upsert(MemoryRecord memory) {
        MemoryKey key = MemoryKey.of(memory);
        return new ProducerRecord<>(name, partition(key), key.key(), Json.bytes(memory));
    }

    /** The tombstone that deletes memory {@code key}. */
    public ProducerRecord<String, byte[]> delete(MemoryKey key) {
        return new ProducerRecord<>(name, partition(key), key.key(), null);
    }
}
