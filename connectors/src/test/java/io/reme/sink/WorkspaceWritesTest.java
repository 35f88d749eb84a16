package io.reme.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A workspace that cannot be written (a full disk): said once, retried by the task, nothing lost or committed. */
class WorkspaceWritesTest {
    private static final TopicPartition P0 = new TopicPartition("reme.dialog", 0);
    private static final TopicPartition P1 = new TopicPartition("reme.dialog", 1);

    @TempDir
    Path root;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(FileSinkTask.class);
    private final RecordingContext context = new RecordingContext(null, Set.of(P0, P1));

    /** Writes by remembering, or fails as a full disk does while {@code full}. */
    private static final class DiskTask extends FileSinkTask {
        boolean full;
        final List<Long> written = new ArrayList<>();

        @Override
        void write(Collection<SinkRecord> records) throws IOException {
            if (full) {
                throw new IOException("No space left on device");
            }
            records.forEach(r -> written.add(r.kafkaOffset()));
        }
    }

    @BeforeEach
    void listen() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stopListening() {
        logger.detachAppender(log);
    }

    private static SinkRecord record(int partition, long offset) {
        return SinkRecords.of("reme.dialog", partition, offset, "acme/s1", new byte[] {1}, 0);
    }

    private long said(Level level) {
        return log.list.stream().filter(e -> e.getLevel() == level).count();
    }

    @Test
    void aFullDiskIsSaidOnceRetriedQuietlyAndLosesNothing() {
        DiskTask task = new DiskTask();
        task.initialize(context);
        task.start(Map.of("workspace.dir", root.toString()));
        long failuresBefore = WorkspaceWrites.snapshot().failures();

        task.full = true;
        task.put(List.of(record(0, 10), record(1, 20)));
        for (int attempt = 0; attempt < 50; attempt++) {
            // Connect polls the paused partitions and hands the task an empty batch after each timeout.
            task.put(List.of());
        }
        // A record that came in before the pause took effect waits behind the others.
        task.put(List.of(record(0, 11)));
        assertEquals(1, said(Level.ERROR), "said once, not once per attempt");
        assertEquals(3, task.unwritten());
        assertEquals(List.of(), task.written);
        assertEquals("pause 2", context.calls.get(0));
        assertEquals("timeout " + FileSinkTask.RETRY_EVERY.toMillis(), context.calls.get(1));
        WorkspaceWrites.Snapshot failing = WorkspaceWrites.snapshot();
        assertEquals(1, failing.failingTasks());
        assertNotNull(failing.failingSince());
        assertEquals(52, failing.failures() - failuresBefore);

        // Offsets are committed up to the first record not written, whatever Connect has handed over.
        Map<TopicPartition, OffsetAndMetadata> committed =
                task.preCommit(Map.of(P0, new OffsetAndMetadata(12), P1, new OffsetAndMetadata(21)));
        assertEquals(10, committed.get(P0).offset());
        assertEquals(20, committed.get(P1).offset());

        task.full = false;
        task.put(List.of());
        assertEquals(List.of(10L, 20L, 11L), task.written, "written in the order they came, none lost");
        assertEquals(1, said(Level.INFO), "said once when it ends");
        assertEquals("resume 2", context.calls.get(context.calls.size() - 1));
        assertEquals(0, WorkspaceWrites.snapshot().failingTasks());
        assertNull(WorkspaceWrites.snapshot().failingSince());
        assertEquals(
                Map.of(P0, new OffsetAndMetadata(12), P1, new OffsetAndMetadata(21)),
                task.preCommit(Map.of(P0, new OffsetAndMetadata(12), P1, new OffsetAndMetadata(21))));
        task.stop();
    }

    @Test
    void unwrittenRecordsOfPartitionsTakenAwayAreLeftToTheirNextOwner() {
        DiskTask task = new DiskTask();
        task.initialize(context);
        task.start(Map.of("workspace.dir", root.toString()));
        task.full = true;
        task.put(List.of(record(0, 10), record(1, 20)));
        task.close(List.of(P1));
        assertEquals(1, task.unwritten());
        task.close(List.of(P0));
        assertEquals(0, task.unwritten());
        assertEquals(0, WorkspaceWrites.snapshot().failingTasks(), "nothing left to write, nothing failing");
        task.full = false;
        task.put(List.of());
        assertEquals(List.of(), task.written);
        task.stop();
    }
}
