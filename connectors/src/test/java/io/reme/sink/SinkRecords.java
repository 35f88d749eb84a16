package io.reme.sink;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;

/** Records as the ByteArrayConverter hands them to a task. */
final class SinkRecords {
    private SinkRecords() {}

    static SinkRecord of(String topic, int partition, long offset, String key, byte[] value, long timestamp) {
        return new SinkRecord(
                topic,
                partition,
                Schema.OPTIONAL_BYTES_SCHEMA,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                Schema.OPTIONAL_BYTES_SCHEMA,
                value,
                offset,
                timestamp,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME);
    }
}
