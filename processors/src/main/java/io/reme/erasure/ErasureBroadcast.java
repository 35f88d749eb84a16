package io.reme.erasure;

import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The partitioner of a sink that carries erasure markers among its records: a marker (a record with
 * the {@link Erasure#HEADER} header) goes to every partition, so each consumer of the topic sees it
 * after whatever this task wrote there before it; every other record is partitioned as by default.
 */
public final class ErasureBroadcast implements StreamPartitioner<String, Object> {
    // Still abstract in Kafka 4.4 (removed in 5.0); Streams calls the overload with headers below.
    @SuppressWarnings("removal")
    @Override
    public Optional<Set<Integer>> partitions(String topic, String key, Object value, int numPartitions) {
        return Optional.empty();
    }

    @Override
    public Optional<Set<Integer>> partitions(
            String topic, String key, Object value, Headers headers, int numPartitions) {
        if (!Erasure.isErasure(headers)) {
            return Optional.empty();
        }
        return Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toUnmodifiableSet()));
    }
}
