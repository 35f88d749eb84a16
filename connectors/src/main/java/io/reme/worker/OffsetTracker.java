package io.reme.worker;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which fetched offsets are done, per partition, so the pool commits only up to the first request
 * still in flight: a crash re-delivers unfinished requests (and possibly some finished ones, which the
 * session processor drops as duplicates), never skips one. Thread-safe.
 */
final class OffsetTracker {
    /** Per partition: offset → jobs of its record not done yet. */
    private final Map<TopicPartition, TreeMap<Long, Integer>> inFlight = new HashMap<>();

    synchronized void fetched(TopicPartition partition, long offset) {
        fetched(partition, offset, 1);
    }

    /** A record that becomes {@code jobs} jobs (one per kind it asks for): done when all of them are. */
    synchronized void fetched(TopicPartition partition, long offset, int jobs) {
        inFlight.computeIfAbsent(partition, p -> new TreeMap<>()).put(offset, jobs);
    }

    synchronized void done(TopicPartition partition, long offset) {
        TreeMap<Long, Integer> offsets = inFlight.get(partition);
        if (offsets != null) {
            offsets.computeIfPresent(offset, (o, left) -> Math.max(0, left - 1));
        }
    }

    /** Offsets to commit now: for each partition, just past the longest finished prefix; removes that prefix. */
    synchronized Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        for (Map.Entry<TopicPartition, TreeMap<Long, Integer>> entry : inFlight.entrySet()) {
            TreeMap<Long, Integer> offsets = entry.getValue();
            Long next = null;
            while (!offsets.isEmpty() && offsets.firstEntry().getValue() == 0) {
                next = offsets.pollFirstEntry().getKey() + 1;
            }
            if (next != null) {
                commits.put(entry.getKey(), new OffsetAndMetadata(next));
            }
        }
        return commits;
    }

    synchronized void forget(TopicPartition partition) {
        inFlight.remove(partition);
    }

    synchronized int pending() {
        return inFlight.values().stream().mapToInt(TreeMap::size).sum();
    }
}
