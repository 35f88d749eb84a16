package io.reme.indexstore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * How much of the memory index is still being restored on this instance: the records of {@code memories}
 * left to apply, over the partitions whose index store is restoring (an empty disk, a new task, a standby
 * catching up). Streams calls it from its restoring thread; the gauges read it from any thread. Other
 * stores' restores are not counted.
 */
public final class MemoryIndexRestores implements StateRestoreListener {
    /** Per restoring partition: the offset restore ends at (exclusive) and the next offset to apply. */
    private record Span(long end, long next) {}

    private final String store;
    private final Map<TopicPartition, Span> restoring = new ConcurrentHashMap<>();

    /** @param store the memory index store's name ({@link MemoryIndexUpdater#STORE}) */
    public MemoryIndexRestores(String store) {
        this.store = store;
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
        if (store.equals(storeName)) {
            // The changelog's end offset when the restore started: the restore ends before it.
            restoring.put(partition, new Span(endingOffset, startingOffset));
        }
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
        if (store.equals(storeName)) {
            restoring.computeIfPresent(partition, (p, span) -> new Span(span.end(), batchEndOffset + 1));
        }
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
        if (store.equals(storeName)) {
            restoring.remove(partition);
        }
    }

    @Override
    public void onRestoreSuspended(TopicPartition partition, String storeName, long totalRestored) {
        if (store.equals(storeName)) {
            restoring.remove(partition);
        }
    }

    /** Records of {@code memories} the restoring partitions have yet to apply (tombstones and markers included). */
    public long remaining() {
        long left = 0;
        for (Span span : restoring.values()) {
            left += Math.max(0, span.end() - span.next());
        }
        return left;
    }

    /** Partitions whose memory index is restoring now. */
    public int partitions() {
        return restoring.size();
    }
}
