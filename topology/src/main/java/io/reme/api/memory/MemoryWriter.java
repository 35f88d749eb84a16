package io.reme.api.memory;

import io.reme.api.ApiException;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Writes memories (with their vectors) and tombstones straight to the {@code memories} topic, in
 * the partition {@link MemoryPartitioning} gives their {@code tenant/id} key, and returns where
 * each landed so the caller can wait for the index to reach it. Thread-safe.
 */
public final class MemoryWriter {
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final int partitions;
    private final MemoryPartitioning partitioning;

    public MemoryWriter(
            Producer<byte[], byte[]> producer, String topic, int partitions, MemoryPartitioning partitioning) {
        this.producer = producer;
        this.topic = topic;
        this.partitions = partitions;
        this.partitioning = partitioning;
    }

    /** Where an acknowledged write is in the topic. */
    record Written(int partition, long offset) {}

    Written upsert(MemoryRecord record) {
        return send(record.tenant(), record.id(), Json.bytes(record));
    }

    Written delete(String tenant, String id) {
        return send(tenant, id, null);
    }

    int partitionOf(String tenant, String id) {
        return partitioning.partition(tenant, id, partitions);
    }

    MemoryPartitioning partitioning() {
        return partitioning;
    }

    int partitions() {
        return partitions;
    }

    private Written send(String tenant, String id, byte[] value) {
        byte[] key = new MemoryKey(tenant, id).bytes();
        try {
            RecordMetadata meta = producer.send(new ProducerRecord<>(topic, partitionOf(tenant, id), key, value))
                    .get(30, TimeUnit.SECONDS);
            return new Written(meta.partition(), meta.offset());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while writing the memory");
        } catch (ExecutionException | TimeoutException e) {
            throw ApiException.unavailable("the memory could not be written", e);
        }
    }
}
