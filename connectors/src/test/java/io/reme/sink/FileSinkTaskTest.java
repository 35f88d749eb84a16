package io.reme.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetterPayload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSinkTaskTest {
    private static final long TIME = System.currentTimeMillis();

    @TempDir
    Path root;

    private final List<SinkRecord> reported = new ArrayList<>();
    private final List<Throwable> reasons = new ArrayList<>();

    private ToolResultSinkTask task(int recordMaxBytes) {
        ToolResultSinkTask task = new ToolResultSinkTask();
        task.initialize(new RecordingContext(
                (record, error) -> {
                    reported.add(record);
                    reasons.add(error);
                    return CompletableFuture.completedFuture(null);
                },
                Set.of()));
        task.start(Map.of("workspace.dir", root.toString(), "record.max.bytes", Integer.toString(recordMaxBytes)));
        return task;
    }

    @Test
    void aRecordOverTheLimitIsDeadLetteredAndNotWritten() {
        ToolResultSinkTask task = task(4096);
        byte[] small = "fits".getBytes(StandardCharsets.UTF_8);
        byte[] large = new byte[5000];
        task.put(List.of(
                SinkRecords.of("reme.tool-results", 0, 0, "acme/large", large, TIME),
                SinkRecords.of("reme.tool-results", 0, 1, "acme/small", small, TIME)));
        assertFalse(Files.exists(root.resolve("acme/tool_result/large.txt")));
        assertTrue(Files.exists(root.resolve("acme/tool_result/small.txt")), "the rest of the batch is written");
        assertEquals(1, reported.size());
        assertEquals(0, reported.get(0).kafkaOffset());
        assertEquals(
                "record of 5010 bytes is over record.max.bytes (4096)",
                reasons.get(0).getMessage());
    }

    @Test
    void aDeadLetterTooLargeToSendTravelsAsAnExcerptWithSizeAndDigest() {
        byte[] value = new byte[FileSinkTask.DEAD_LETTER_MAX_BYTES + 1];
        Arrays.fill(value, (byte) 'v');
        SinkRecord record = SinkRecords.of("reme.tool-results", 3, 42, "acme/../x", value, TIME);
        record.headers().addBytes("origin", "kept".getBytes(StandardCharsets.UTF_8));
        SinkRecord dead = FileSinkTask.deadLetter(record);
        assertArrayEquals(Arrays.copyOf(value, DeadLetterPayload.EXCERPT_BYTES), (byte[]) dead.value());
        assertArrayEquals("acme/../x".getBytes(StandardCharsets.UTF_8), (byte[]) dead.key());
        assertEquals(3, dead.kafkaPartition());
        assertEquals(42, dead.kafkaOffset());
        assertEquals(Integer.toString(value.length), header(dead, DeadLetterHeaders.VALUE_SIZE));
        assertEquals("true", header(dead, DeadLetterHeaders.VALUE_TRUNCATED));
        assertEquals(DeadLetterPayload.of(value, 1).sha256(), header(dead, DeadLetterHeaders.VALUE_SHA256));
        assertEquals("false", header(dead, DeadLetterHeaders.KEY + ".truncated"));
        assertEquals("kept", header(dead, "origin"));
    }

    @Test
    void largeHeadersAreCutAndCounted() {
        SinkRecord record = SinkRecords.of("reme.tool-results", 0, 0, "acme/x", new byte[1], TIME);
        for (int i = 0; i < 3; i++) {
            record.headers().addBytes("h" + i, new byte[FileSinkTask.DEAD_LETTER_MAX_HEADER_BYTES / 2]);
        }
        SinkRecord dead = FileSinkTask.deadLetter(record);
        assertEquals("2", header(dead, DeadLetterHeaders.HEADERS_DROPPED));
        assertEquals("false", header(dead, DeadLetterHeaders.VALUE_TRUNCATED));
    }

    @Test
    void aDeadLetterThatFitsIsTheRecordItself() {
        SinkRecord record = SinkRecords.of("reme.tool-results", 0, 0, "acme/../x", new byte[1000], TIME);
        assertSame(record, FileSinkTask.deadLetter(record));
    }

    private static String header(SinkRecord record, String name) {
        Header header = record.headers().lastWithName(name);
        return header == null ? null : new String((byte[]) header.value(), StandardCharsets.UTF_8);
    }
}
