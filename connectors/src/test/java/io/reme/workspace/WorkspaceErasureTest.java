package io.reme.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceErasureTest {
    private static final Instant ERASED_AT = Instant.parse("2026-12-01T12:00:00Z");

    @TempDir
    Path root;

    @TempDir
    Path outside;

    private Path written(String path, long hours) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, path);
        Files.setLastModifiedTime(file, FileTime.from(ERASED_AT.plus(Duration.ofHours(hours))));
        return file;
    }

    @Test
    void anErasureTakesWhatWasWrittenBeforeItAndLeavesWhatCameSince() throws IOException {
        Workspace workspace = new Workspace(root);
        Path old = written("acme/alice/memory/2026-11-30.md", -2);
        Path memory = written("acme/alice/MEMORY.md", 0);
        Path since = written("acme/alice/memory/2026-12-02.md", 1);
        Path dialog = written("acme/alice/dialog/2026-11-30.jsonl", -2);
        Path ledger = written(".state/acme/alice/2026-11-30.written", -2);
        Path newLedger = written(".state/acme/alice/2026-12-02.written", 1);
        Path bobs = written("acme/bob/MEMORY.md", -2);
        Path tool = written("acme/tool_result/t1.txt", -2);
        Path secret = Files.writeString(outside.resolve("secret.txt"), "not the workspace's");
        Files.setLastModifiedTime(secret, FileTime.from(ERASED_AT.minus(Duration.ofDays(1))));
        Path link = Files.createSymbolicLink(root.resolve("acme/alice/memory/link.md"), secret);

        int deleted = workspace.eraseChangedBy("acme", "alice", ERASED_AT, workspace::isDialogFile);

        assertEquals(4, deleted, "two documents at or before the request, one ledger, one link");
        assertFalse(Files.exists(old));
        assertFalse(Files.exists(memory), "written at the very time of the request: the erasure's");
        assertFalse(Files.exists(ledger));
        assertFalse(Files.exists(link, LinkOption.NOFOLLOW_LINKS), "the link went as a link");
        assertTrue(Files.exists(secret), "what it pointed to is untouched");
        assertTrue(Files.exists(since), "a diary page written after the request stays");
        assertTrue(Files.exists(newLedger));
        assertTrue(Files.exists(dialog), "dialog files are the sink's to read line by line");
        assertTrue(Files.exists(bobs) && Files.exists(tool), "another user's files and the tenant's tool outputs");

        assertEquals(List.of(dialog), workspace.dialogFiles("acme", "alice"));
        assertEquals(List.of(dialog), workspace.dialogFiles("acme", null));
        Files.delete(dialog);
        Files.delete(since);
        Files.delete(newLedger);
        assertEquals(0, workspace.eraseChangedBy("acme", "alice", ERASED_AT, workspace::isDialogFile));
        assertFalse(Files.exists(root.resolve("acme/alice")), "folders left empty go");
        assertFalse(Files.exists(root.resolve(".state/acme/alice")));

        assertEquals(2, workspace.eraseChangedBy("acme", null, ERASED_AT, workspace::isDialogFile));
        assertFalse(Files.exists(root.resolve("acme")), "the tenant's folder, tool outputs included");
    }

    @Test
    void aLinkOnTheWayIsRefused() throws IOException {
        Workspace workspace = new Workspace(root);
        Files.createDirectories(root.resolve("acme"));
        Files.createDirectories(outside.resolve("alice/dialog"));
        Path elsewhere = Files.writeString(outside.resolve("alice/dialog/2026-11-30.jsonl"), "{}\n");
        Files.setLastModifiedTime(elsewhere, FileTime.from(ERASED_AT.minus(Duration.ofDays(1))));
        Files.createSymbolicLink(root.resolve("acme/alice"), outside.resolve("alice"));

        assertThrows(
                RefusedPathException.class,
                () -> workspace.eraseChangedBy("acme", "alice", ERASED_AT, workspace::isDialogFile));
        assertThrows(RefusedPathException.class, () -> workspace.dialogFiles("acme", "alice"));
        assertTrue(Files.exists(elsewhere));
        // The whole tenant: its user folder that is a link is not walked into, and goes as a link.
        assertEquals(List.of(), workspace.dialogFiles("acme", null));
        assertEquals(1, workspace.eraseChangedBy("acme", null, ERASED_AT, workspace::isDialogFile));
        assertTrue(Files.exists(elsewhere));
    }
}
