package io.reme.indexstore;

import io.reme.search.MemoryKey;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Where a tenant's memories live: keys are {@code tenant/memoryId}, partitioned by tenant (and,
 * for big tenants, one of {@code buckets} sub-spaces chosen by memory id), so a search asks only
 * the partitions that can hold the tenant's memories instead of every partition.
 */
public final class MemoryPartitioning implements StreamPartitioner<String, Object> {
    private final int buckets;

    public MemoryPartitioning(int buckets) {
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets must be >= 1");
        }
        this.buckets = buckets;
    }

    public int buckets() {
        return buckets;
    }

    /** The partition of memory {@code memoryId} of {@code tenant}. */
    public int partition(String tenant, String memoryId, int partitions) {
        int bucket = Math.floorMod(memoryId.hashCode(), buckets);
        return bucketPartition(tenant, bucket, partitions);
    }

    /** Every partition that may hold a memory of {@code tenant}. */
    public Set<Integer> partitionsOf(String tenant, int partitions) {
        Set<Integer> result = new TreeSet<>();
        for (int bucket = 0; bucket < buckets; bucket++) {
            result.add(bucketPartition(tenant, bucket, partitions));
        }
        return result;
    }

    private static int bucketPartition(String tenant, int bucket, int partitions) {
        byte[] bytes = (tenant + "#" + bucket).getBytes(StandardCharsets.UTF_8);
        return Utils.toPositive(Utils.murmur2(bytes)) % partitions;
    }

    /** Partitions a {@code tenant/memoryId} key for a Streams sink; the headers play no part. */
    @Override
    public Optional<Set<Integer>> partitions(
            String topic, String key, Object value, Headers headers, int numPartitions) {
        MemoryKey memory = MemoryKey.parse(key);
        return Optional.of(Set.of(partition(memory.tenant(), memory.id(), numPartitions)));
    }

    // Still abstract in Kafka 4.4 (removed in 5.0); Streams calls the overload with headers above.
    @SuppressWarnings("removal")
    @Override
    public Optional<Set<Integer>> partitions(String topic, String key, Object value, int numPartitions) {
        return partitions(topic, key, value, null, numPartitions);
    }
}
