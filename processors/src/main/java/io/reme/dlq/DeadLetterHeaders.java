package io.reme.dlq;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Builds the headers of a dead-letter record: reason, detail and where the record came from. */
public final class DeadLetterHeaders {
    public static final String REASON = "reme.dlq.reason";
    public static final String DETAIL = "reme.dlq.detail";
    public static final String TOPIC = "reme.dlq.source.topic";
    public static final String PARTITION = "reme.dlq.source.partition";
    public static final String OFFSET = "reme.dlq.source.offset";
    public static final String TIME = "reme.dlq.time";
    /** Size in bytes of the original value ({@code .size}), its SHA-256 ({@code .sha256}), whether it was cut ({@code .truncated}). */
    public static final String VALUE = "reme.dlq.value";
    /** The same for the original key. */
    public static final String KEY = "reme.dlq.key";

    public static final String VALUE_SIZE = VALUE + ".size";
    public static final String VALUE_SHA256 = VALUE + ".sha256";
    public static final String VALUE_TRUNCATED = VALUE + ".truncated";
    /** Original headers left out because together they were too large to carry. */
    public static final String HEADERS_DROPPED = "reme.dlq.headers.dropped";

    private static final int MAX_DETAIL = 1000;

    private DeadLetterHeaders() {}

    /**
     * Returns the original headers (up to {@link DeadLetterPayload#MAX_ORIGINAL_HEADER_BYTES}) plus the
     * dead-letter ones. Origin values are -1 / empty when the record did not come straight from a topic
     * (e.g. a punctuation).
     */
    public static Headers of(
            Headers original, DlqReason reason, String detail, String topic, int partition, long offset, long timeMs) {
        RecordHeaders headers = new RecordHeaders();
        int dropped = DeadLetterPayload.copyBounded(original, headers);
        String cut = detail == null ? "" : detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) : detail;
        headers.add(REASON, bytes(reason.name()));
        headers.add(DETAIL, bytes(cut));
        headers.add(TOPIC, bytes(topic == null ? "" : topic));
        headers.add(PARTITION, bytes(Integer.toString(partition)));
        headers.add(OFFSET, bytes(Long.toString(offset)));
        headers.add(TIME, bytes(Long.toString(timeMs)));
        if (dropped > 0) {
            headers.add(HEADERS_DROPPED, bytes(Integer.toString(dropped)));
        }
        return headers;
    }

    public static String read(Headers headers, String name) {
        var header = headers.lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
