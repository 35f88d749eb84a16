package io.reme.indexstore;

import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;

/**
 * The one class that uses Kafka Streams' internals: Checkstyle's import-control allows
 * {@code org.apache.kafka.streams.*.internals} nowhere else. Internals change between Kafka releases
 * without notice, so each method here names what it relies on and {@code StreamsInternalsTest} fails
 * when an upgrade breaks it.
 */
final class StreamsInternals {
    private StreamsInternals() {}

    /**
     * A restore callback that is handed each restored record with its offset. The public callbacks see
     * key and value only. Relies on: Streams' restore path ({@code ProcessorStateManager}) adapts every
     * callback with {@code StateRestoreCallbackAdapter.adapt} and passes a
     * {@link RecordBatchingStateRestoreCallback} through unchanged, calling {@code restoreBatch} with the
     * consumer records themselves.
     */
    static StateRestoreCallback restoreWithOffsets(Consumer<ConsumerRecord<byte[], byte[]>> apply) {
        return (RecordBatchingStateRestoreCallback) records -> records.forEach(apply);
    }
}
