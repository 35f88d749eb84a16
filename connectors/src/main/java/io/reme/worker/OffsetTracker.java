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
    /** Per partition: offset → done. */
    private final Map<TopicPartition, TreeMap<Long, Boolean>> inFlight = new HashMap<>();

    synchronized void fetched(TopicPartition partition, long offset) {
        inFlight.computeIfAbsent(partition, p -> new TreeMap<>()).put(offset, false);
    }

    synchronized void done(TopicPartition partition, long offset) {
        TreeMap<Long, Boolean> offsets = inFlight.get(partition);
        if (offsets != null && offsets.containsKey(offset)) {
            offsets.put(offset, true);
        }
    }

    /** Offsets to commit now: for each partition, just past the longest finished prefix; removes that prefix. */
    synchronized Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        for (Map.Entry<TopicPartition, TreeMap<Long, Boolean>> entry : inFlight.entrySet()) {
            TreeMap<Long, Boolean> offsets = entry.getValue();
            Long next = null;
            while (!offsets.isEmpty() && offsets.firstEntry().getValue()) {
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
