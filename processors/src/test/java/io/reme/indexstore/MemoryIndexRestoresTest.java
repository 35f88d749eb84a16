package io.reme.indexstore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** What the restore gauges report as Streams restores the memory index and other stores. */
class MemoryIndexRestoresTest {
    private static final TopicPartition P0 = new TopicPartition("memories", 0);
    private static final TopicPartition P1 = new TopicPartition("memories", 1);

    @Test
    void countsWhatTheIndexStillHasToApplyAndNothingElse() {
        MemoryIndexRestores restores = new MemoryIndexRestores(MemoryIndexUpdater.STORE);
        assertEquals(0, restores.remaining());

        restores.onRestoreStart(P0, MemoryIndexUpdater.STORE, 100, 1_100);
        restores.onRestoreStart(P1, MemoryIndexUpdater.STORE, 0, 500);
        restores.onRestoreStart(new TopicPartition("sessions-changelog", 0), "session-messages", 0, 9_000);
        assertEquals(1_500, restores.remaining());
        assertEquals(2, restores.partitions());

        restores.onBatchRestored(P0, MemoryIndexUpdater.STORE, 599, 500);
        restores.onBatchRestored(new TopicPartition("sessions-changelog", 0), "session-messages", 4_000, 4_000);
        assertEquals(1_000, restores.remaining());

        restores.onRestoreEnd(P1, MemoryIndexUpdater.STORE, 500);
        assertEquals(500, restores.remaining());
        restores.onRestoreSuspended(P0, MemoryIndexUpdater.STORE, 500);
        assertEquals(0, restores.remaining());
        assertEquals(0, restores.partitions());
    }
}
