package io.reme.api.erasure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.workspace.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ErasureFilesTest {
    private static final Instant REQUESTED = Instant.parse("2026-12-03T10:00:00Z");

    @TempDir
    Path root;

    private Path file(String relative, Instant modified) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "x");
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    @Test
    void filesOfTheUserWrittenBeforeTheRequestArePendingAndLaterOnesAreANewSessions() throws IOException {
        Workspace workspace = new Workspace(root);
        assertEquals(List.of(), ErasureFiles.olderThan(workspace, "acme", "alice", REQUESTED, 20), "no folder");

        file("acme/alice/dialog/2026-12-02.jsonl", REQUESTED.minusSeconds(3600));
        file("acme/alice/MEMORY.md", REQUESTED.minusSeconds(60));
        file("acme/alice/dialog/2026-12-03.jsonl", REQUESTED.plusSeconds(5));
        file("acme/bob/MEMORY.md", REQUESTED.minusSeconds(60));
        Path outside = Files.createDirectories(root.resolve("elsewhere"));
        Files.writeString(outside.resolve("secret"), "x");
        Files.setLastModifiedTime(outside.resolve("secret"), FileTime.from(REQUESTED.minusSeconds(60)));
        Files.createSymbolicLink(root.resolve("acme/alice/link"), outside);

        assertEquals(
                List.of("acme/alice/MEMORY.md", "acme/alice/dialog/2026-12-02.jsonl"),
                ErasureFiles.olderThan(workspace, "acme", "alice", REQUESTED, 20).stream()
                        .sorted()
                        .toList());
        assertEquals(
                1,
                ErasureFiles.olderThan(workspace, "acme", "alice", REQUESTED, 1).size(),
                "bounded");
        assertEquals(
                3,
                ErasureFiles.olderThan(workspace, "acme", null, REQUESTED, 20).size(),
                "a tenant: every user");
        assertEquals(List.of(), ErasureFiles.olderThan(workspace, "globex", null, REQUESTED, 20));
    }
}
