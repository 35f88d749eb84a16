package io.reme.dlq;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Builds the dead-letter record of a raw input record being processed: same key, bytes and timestamp, plus reason headers. */
public final class DeadLetters {
    private DeadLetters() {
    }

    public static Record<Object, Object> of(ProcessorContext<?, ?> context, Record<byte[], byte[]> original,
            DlqReason reason, String detail) {
        RecordMetadata origin = context.recordMetadata().orElse(null);
        Headers headers = DeadLetterHeaders.of(original.headers(), reason, detail,
                origin == null ? null : origin.topic(), origin == null ? -1 : origin.partition(),
                origin == null ? -1 : origin.offset(), original.timestamp());
        return new Record<>(original.key(), original.value(), original.timestamp(), headers);
    }
}
