package io.reme.api.memory;

import io.reme.api.ApiException;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.indexstore.MemoryTopic;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import io.reme.trace.RecordTracing;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Writes memories (with their vectors) and tombstones straight to the {@code memories} topic, framed as every
 * writer frames them ({@link MemoryTopic}), and returns where each landed so the caller can wait for the index to
 * reach it. Thread-safe.
 */
public final class MemoryWriter {
    private final Producer<byte[], byte[]> producer;
    private final MemoryTopic topic;
    private final RecordTracing tracing;

    /** @param tracing a write made in a trace in a span of its own, named as the GenAI memory conventions name it */
    public MemoryWriter(
            Producer<byte[], byte[]> producer,
            String topic,
            int partitions,
            MemoryPartitioning partitioning,
            RecordTracing tracing) {
        this.producer = producer;
        this.topic = new MemoryTopic(topic, partitions, partitioning);
        this.tracing = tracing;
    }

    /** Where an acknowledged write is in the topic. */
    record Written(int partition, long offset) {}

    /** @param created whether the memory is new ({@code create_memory}) or a revision ({@code update_memory}) */
    Written upsert(MemoryRecord record, boolean created) {
        return tracing.memoryOperation(
                created ? "create_memory" : "update_memory",
                topic.name(),
                record.tenant(),
                () -> send(topic.upsert(record)),
                written -> 1);
    }

    Written delete(String tenant, String id) {
        return tracing.memoryOperation(
                "delete_memory",
                topic.name(),
                tenant,
                () -> send(topic.delete(new MemoryKey(tenant, id))),
                written -> 1);
    }

    int partitionOf(String tenant, String id) {
        return topic.partition(new MemoryKey(tenant, id));
    }

    MemoryPartitioning partitioning() {
        return topic.partitioning();
    }

    int partitions() {
        return topic.partitions();
    }

    private Written send(ProducerRecord<String, byte[]> framed) {
        // The instance's producer writes bytes: the key as a string serializer would.
        // A write made in a trace carries it on: the index write joins it.
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                framed.topic(),
                framed.partition(),
                framed.key().getBytes(StandardCharsets.UTF_8),
                framed.value(),
                RecordTracing.current());
        try {
            RecordMetadata meta = producer.send(record).get(30, TimeUnit.SECONDS);
            return new Written(meta.partition(), meta.offset());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while writing the memory");
        } catch (ExecutionException | TimeoutException e) {
            throw ApiException.unavailable("the memory could not be written", e);
        }
    }
}
