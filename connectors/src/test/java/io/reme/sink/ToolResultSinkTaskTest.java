package io.reme.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolResultSinkTaskTest {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path root;

    @TempDir
    Path outside;

    private ToolResultSinkTask task(Duration retention) {
        ToolResultSinkTask task = new ToolResultSinkTask(Clock.fixed(NOW, ZoneOffset.UTC));
        task.start(Map.of("workspace.dir", root.toString(), "retention.ms", Long.toString(retention.toMillis())));
        return task;
    }

    @Test
    void outputsAreWrittenByteForByteAndDeletedByTombstones() throws Exception {
        ToolResultSinkTask task = task(Duration.ofDays(3));
        byte[] output = "line 1\nline 2 ✓\n\u0000binary-ish".getBytes(StandardCharsets.UTF_8);
        long time = NOW.toEpochMilli();
        task.put(List.of(SinkRecords.of("reme.tool-results", 0, 0, "acme/abc123", output, time)));
        Path file = root.resolve("acme/tool_result/abc123.txt");
        assertArrayEquals(output, Files.readAllBytes(file));
        task.put(List.of(SinkRecords.of("reme.tool-results", 0, 0, "acme/abc123", output, time)));
        assertArrayEquals(output, Files.readAllBytes(file));
        task.put(List.of(SinkRecords.of("reme.tool-results", 0, 1, "acme/abc123", null, time)));
        assertFalse(Files.exists(file));
    }

    @Test
    void outputsPastTheRetentionAreDeleted() throws Exception {
        ToolResultSinkTask task = task(Duration.ofDays(3));
        byte[] output = "x".getBytes(StandardCharsets.UTF_8);
        task.put(List.of(
                SinkRecords.of(
                        "reme.tool-results",
                        0,
                        0,
                        "acme/old",
                        output,
                        NOW.minus(Duration.ofDays(4)).toEpochMilli()),
                SinkRecords.of(
                        "reme.tool-results",
                        0,
                        1,
                        "acme/new",
                        output,
                        NOW.minus(Duration.ofDays(2)).toEpochMilli())));
        assertFalse(Files.exists(root.resolve("acme/tool_result/old.txt")));
        assertTrue(Files.exists(root.resolve("acme/tool_result/new.txt")));
    }

    @Test
    void aLinkedToolResultFolderIsNeitherWrittenNorSwept() throws Exception {
        Path old = Files.writeString(outside.resolve("old.txt"), "not ours");
        Files.setLastModifiedTime(old, FileTime.from(NOW.minus(Duration.ofDays(30))));
        Files.createDirectories(root.resolve("acme"));
        Files.createSymbolicLink(root.resolve("acme/tool_result"), outside);
        ToolResultSinkTask task = task(Duration.ofDays(3));
        byte[] output = "x".getBytes(StandardCharsets.UTF_8);
        DataException refused = assertThrows(
                DataException.class,
                () -> task.put(
                        List.of(SinkRecords.of("reme.tool-results", 0, 0, "acme/abc123", output, NOW.toEpochMilli()))));
        assertTrue(refused.getMessage().contains("symbolic link"), refused.getMessage());
        assertFalse(Files.exists(outside.resolve("abc123.txt")));
        // A tombstone for a file behind the link, and the sweep that a write of another tenant runs.
        Files.writeString(outside.resolve("gone.txt"), "not ours either");
        assertThrows(
                DataException.class,
                () -> task.put(
                        List.of(SinkRecords.of("reme.tool-results", 0, 1, "acme/gone", null, NOW.toEpochMilli()))));
        task.put(List.of(SinkRecords.of("reme.tool-results", 0, 2, "other/abc", output, NOW.toEpochMilli())));
        assertTrue(Files.exists(outside.resolve("gone.txt")));
        assertTrue(Files.exists(old), "the retention sweep does not follow the link");
    }

    @Test
    void hostileIdsNeverLeaveTheRoot() {
        ToolResultSinkTask task = task(Duration.ofDays(3));
        byte[] output = "x".getBytes(StandardCharsets.UTF_8);
        for (String key : List.of("acme/../x", "acme/a/b", "../acme/x", "acme/" + "y".repeat(65), "acme/ü", "acme/")) {
            assertThrows(
                    DataException.class,
                    () -> task.put(List.of(SinkRecords.of("reme.tool-results", 0, 0, key, output, 0L))),
                    key);
        }
        assertFalse(Files.exists(root.resolve("x.txt")));
        assertFalse(Files.exists(root.getParent().resolve("x.txt")));
    }
}
