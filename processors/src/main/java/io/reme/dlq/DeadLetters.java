package io.reme.dlq;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds dead-letter records: the original key and bytes (cut to an excerpt when over the limit), its
 * timestamp, and headers with the reason, the origin and the payload's size and digest.
 */
public final class DeadLetters {
    /** Keys longer than this are cut like values; real keys are two or three IDs of at most 64 characters. */
    public static final int MAX_KEY_BYTES = 1024;

    private DeadLetters() {}

    /** A dead letter's key and value, each whole or an excerpt. */
    public record Bounded(byte[] key, byte[] value) {}

    /**
     * The dead letter of a raw input record being processed.
     *
     * @param maxPayloadBytes the largest value carried whole (the input limit: anything larger was refused as too large)
     */
    public static Record<Object, Object> of(
            ProcessorContext<?, ?> context,
            Record<byte[], byte[]> original,
            DlqReason reason,
            String detail,
            int maxPayloadBytes) {
        RecordMetadata origin = context.recordMetadata().orElse(null);
        Headers headers = DeadLetterHeaders.of(
                original.headers(),
                reason,
                detail,
                origin == null ? null : origin.topic(),
                origin == null ? -1 : origin.partition(),
                origin == null ? -1 : origin.offset(),
                original.timestamp());
        Bounded bounded = bound(original.key(), original.value(), headers, maxPayloadBytes);
        return new Record<>(bounded.key(), bounded.value(), original.timestamp(), headers);
    }

    /**
     * Cuts key and value to what a dead letter may carry and adds their sizes and digests to {@code headers}
     * (built by {@link DeadLetterHeaders#of}).
     */
    public static Bounded bound(byte[] key, byte[] value, Headers headers, int maxPayloadBytes) {
        DeadLetterPayload keyPayload = DeadLetterPayload.of(key, Math.min(MAX_KEY_BYTES, maxPayloadBytes));
        DeadLetterPayload valuePayload = DeadLetterPayload.of(value, maxPayloadBytes);
        if (keyPayload.truncated()) {
            keyPayload.describe(headers, DeadLetterHeaders.KEY);
        }
        valuePayload.describe(headers, DeadLetterHeaders.VALUE);
        return new Bounded(keyPayload.bytes(), valuePayload.bytes());
    }
}
