package io.reme.indexstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.StateRestoreCallbackAdapter;
import org.junit.jupiter.api.Test;

/**
 * The upgrade test of {@link StreamsInternals}: it fails to compile or fails its assertions when a Kafka
 * release changes what the memory index's restore relies on.
 */
class StreamsInternalsTest {

    @Test
    void streamsHandsTheRestoreCallbackEveryRecordWithItsOffset() {
        List<String> seen = new ArrayList<>();
        StateRestoreCallback callback = StreamsInternals.restoreWithOffsets(
                record -> seen.add(new String(record.key(), StandardCharsets.UTF_8) + "@" + record.offset()));

        // What Streams' restore path calls: the adapter must pass our callback through, not wrap it in one that
        // drops everything but key and value.
        RecordBatchingStateRestoreCallback adapted = StateRestoreCallbackAdapter.adapt(callback);
        assertSame(callback, adapted);

        adapted.restoreBatch(List.of(
                new ConsumerRecord<>("memories", 0, 41L, bytes("t/a"), bytes("{}")),
                new ConsumerRecord<>("memories", 0, 42L, bytes("t/b"), null)));
        assertEquals(List.of("t/a@41", "t/b@42"), seen);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
