package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    @Test
    void commitsOnlyPastTheFirstUnfinishedOffset() {
        OffsetTracker tracker = new OffsetTracker();
        for (long offset = 10; offset < 15; offset++) {
            tracker.fetched(P0, offset);
        }
        tracker.fetched(P1, 3);
        tracker.done(P0, 11);
        tracker.done(P0, 12);
        assertEquals(Map.of(), tracker.committable(), "10 is still in flight");
        tracker.done(P0, 10);
        tracker.done(P1, 3);
        assertEquals(Map.of(P0, new OffsetAndMetadata(13), P1, new OffsetAndMetadata(4)), tracker.committable());
        assertEquals(Map.of(), tracker.committable(), "nothing new");
        tracker.done(P0, 14);
        assertEquals(Map.of(), tracker.committable(), "13 is still in flight");
        tracker.done(P0, 13);
        assertEquals(Map.of(P0, new OffsetAndMetadata(15)), tracker.committable());
        assertEquals(0, tracker.pending());
    }

    @Test
    void aRecordOfSeveralJobsIsDoneWithItsLast() {
        OffsetTracker tracker = new OffsetTracker();
        tracker.fetched(P0, 7, 2);
        tracker.fetched(P0, 8);
        tracker.done(P0, 8);
        tracker.done(P0, 7);
        assertEquals(Map.of(), tracker.committable(), "one of the two kinds of 7 is still in flight");
        tracker.done(P0, 7);
        assertEquals(Map.of(P0, new OffsetAndMetadata(9)), tracker.committable());
        assertEquals(0, tracker.pending());
    }

    @Test
    void forgetsRevokedPartitions() {
        OffsetTracker tracker = new OffsetTracker();
        tracker.fetched(P0, 1);
        tracker.forget(P0);
        tracker.done(P0, 1);
        assertEquals(Map.of(), tracker.committable());
    }
}
