package io.reme.topology;

import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A sink's value serialiser that refuses values over the record limit. The refusal happens before the
 * producer sees the record, as a serialisation error the production exception handler answers (drop
 * and dead-letter): under exactly-once a record the producer itself refused as too large would leave
 * the transaction unable to commit, and the task would re-process the same input forever.
 */
final class LimitedSerializer implements Serializer<Object> {
    private final Serializer<Object> inner;
    private final int maxBytes;

    LimitedSerializer(Serializer<Object> inner, int maxBytes) {
        this.inner = inner;
        this.maxBytes = maxBytes;
    }

    @Override
    public byte[] serialize(String topic, Object data) {
        return check(topic, inner.serialize(topic, data));
    }

    @Override
    public byte[] serialize(String topic, Headers headers, Object data) {
        return check(topic, inner.serialize(topic, headers, data));
    }

    private byte[] check(String topic, byte[] bytes) {
        if (bytes != null && bytes.length > maxBytes) {
            throw new RecordTooLargeException("a value of " + bytes.length + " bytes for " + topic
                    + " is over the record limit of " + maxBytes + " bytes");
        }
        return bytes;
    }

    @Override
    public void close() {
        inner.close();
    }
}
