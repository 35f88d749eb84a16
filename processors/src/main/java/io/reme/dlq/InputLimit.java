package io.reme.dlq;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The size limit every raw-byte source enforces before anything of a record is parsed, stored or
 * forwarded: key, value and headers together. Kafka measures a compressed batch against a topic's
 * {@code max.message.bytes}, so a record far larger than any output topic accepts can arrive
 * compressed; checked here, it goes to the dead-letter topic as an excerpt instead of wedging its
 * partition.
 */
public record InputLimit(int maxBytes) {
    public InputLimit {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
    }

    /** Bytes of key, value and headers (names and values). */
    public static long size(byte[] key, byte[] value, Headers headers) {
        long size = (long) (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        if (headers != null) {
            for (Header header : headers) {
                size += (long) header.key().length() + (header.value() == null ? 0 : header.value().length);
            }
        }
        return size;
    }

    /** Why the record is too large, or null when it is within the limit. */
    public String violation(byte[] key, byte[] value, Headers headers) {
        long size = size(key, value, headers);
        return size > maxBytes ? "record is " + size + " bytes (key, value and headers), limit is " + maxBytes : null;
    }
}
