package io.reme.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.diary.DiaryDocument;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The diary sink never writes through a link a user planted in their folder. */
class DiarySinkTaskTest {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path root;

    @TempDir
    Path outside;

    private DiarySinkTask task;

    @BeforeEach
    void start() {
        task = new DiarySinkTask();
        task.start(Map.of("workspace.dir", root.toString()));
    }

    @AfterEach
    void stop() {
        task.stop();
    }

    private static SinkRecord record(String user, String name, String content) throws IOException {
        DiaryDocument document = new DiaryDocument("acme", user, name, content, 1, "e1", "model", NOW, List.of());
        return SinkRecords.of(
                "reme.diary",
                0,
                0,
                "acme/" + user + "/" + name,
                Json.MAPPER.writeValueAsBytes(document),
                NOW.toEpochMilli());
    }

    private List<Path> outsideFiles() throws IOException {
        try (Stream<Path> files = Files.walk(outside)) {
            return files.filter(f -> !f.equals(outside)).sorted().toList();
        }
    }

    @Test
    void documentsAreWrittenInPlainFolders() throws IOException {
        task.put(List.of(record("alice", "2026-11-30", "# Diary\n")));
        Path file = root.resolve("acme/alice/memory/2026-11-30.md");
        assertEquals("# Diary\n", Files.readString(file));
        if (Files.getFileStore(root).supportsFileAttributeView("posix")) {
            for (Path folder : List.of(root.resolve("acme"), root.resolve("acme/alice"), file.getParent())) {
                assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
            }
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
    }

    @Test
    void aTombstoneDeletesTheDocumentAndItsLedgerSoANewVersionOneIsWritten() throws IOException {
        task.put(List.of(record("alice", "MEMORY", "# Old\n"), record("bob", "MEMORY", "# Bob\n")));
        Path alice = root.resolve("acme/alice/MEMORY.md");
        assertEquals("# Old\n", Files.readString(alice));

        task.put(List.of(SinkRecords.of("reme.diary", 0, 1, "acme/alice/MEMORY", null, NOW.toEpochMilli())));
        assertFalse(Files.exists(alice), "the erased document's file is deleted");
        assertEquals("# Bob\n", Files.readString(root.resolve("acme/bob/MEMORY.md")));

        // Version 1 again (a user who comes back after the erasure): written, not taken for the old one.
        task.put(List.of(record("alice", "MEMORY", "# New\n")));
        assertEquals("# New\n", Files.readString(alice));
    }

    @Test
    void aLinkedMemoryFolderIsRefused() throws IOException {
        Files.createDirectories(root.resolve("acme/alice"));
        Files.createSymbolicLink(root.resolve("acme/alice/memory"), outside);
        DataException refused =
                assertThrows(DataException.class, () -> task.put(List.of(record("alice", "2026-11-30", "# Diary\n"))));
        assertTrue(refused.getMessage().contains("symbolic link"), refused.getMessage());
        assertEquals(List.of(), outsideFiles());
    }

    @Test
    void aLinkedUserFolderIsRefused() throws IOException {
        Files.createDirectories(root.resolve("acme"));
        Files.createSymbolicLink(root.resolve("acme/alice"), outside);
        assertThrows(DataException.class, () -> task.put(List.of(record("alice", "MEMORY", "# Memory\n"))));
        assertThrows(DataException.class, () -> task.put(List.of(record("alice", "2026-11-30", "# Diary\n"))));
        assertEquals(List.of(), outsideFiles());
    }

    @Test
    void aLinkedMemoryFileIsNeitherReadNorReplaced() throws IOException {
        Path victim = Files.writeString(outside.resolve("notes.md"), "outside");
        Files.createDirectories(root.resolve("acme/alice"));
        Path link = Files.createSymbolicLink(root.resolve("acme/alice/MEMORY.md"), victim);
        assertThrows(DataException.class, () -> task.put(List.of(record("alice", "MEMORY", "# Memory\n"))));
        assertEquals("outside", Files.readString(victim));
        assertTrue(Files.isSymbolicLink(link));
    }
}
