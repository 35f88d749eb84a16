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
    private static final int MAX_DETAIL = 1000;

    private DeadLetterHeaders() {
    }

    /**
     * Returns the original headers plus the dead-letter ones. Origin values are -1 / empty when the
     * record did not come straight from a topic (e.g. a punctuation).
     */
    public static Headers of(Headers original, DlqReason reason, String detail, String topic,
            int partition, long offset, long timeMs) {
        RecordHeaders headers = new RecordHeaders(original == null ? null : original.toArray());
        String cut = detail == null ? "" : detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) : detail;
        headers.add(REASON, bytes(reason.name()));
        headers.add(DETAIL, bytes(cut));
        headers.add(TOPIC, bytes(topic == null ? "" : topic));
        headers.add(PARTITION, bytes(Integer.toString(partition)));
        headers.add(OFFSET, bytes(Long.toString(offset)));
        headers.add(TIME, bytes(Long.toString(timeMs)));
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
