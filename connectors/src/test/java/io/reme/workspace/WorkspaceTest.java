package io.reme.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.diary.DocumentKey;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkspaceTest {
    private final Workspace workspace = new Workspace(Path.of("/srv/ws"));

    @Test
    void layoutFollowsTheFilesUsersKnow() {
        assertEquals(
                Path.of("/srv/ws/acme/alice/MEMORY.md"), workspace.documentFile(DocumentKey.longTerm("acme", "alice")));
        assertEquals(
                Path.of("/srv/ws/acme/alice/memory/2026-11-30.md"),
                workspace.documentFile(DocumentKey.daily("acme", "alice", LocalDate.of(2026, 11, 30))));
        assertEquals(
                Path.of("/srv/ws/acme/alice/dialog/2026-11-30.jsonl"),
                workspace.dialogFile("acme", "alice", "2026-11-30"));
        assertEquals(Path.of("/srv/ws/acme/tool_result/0f3a.txt"), workspace.toolResultFile("acme", "0f3a"));
    }

    @Test
    void hostileIdsAreRejected() {
        List<String> hostile = List.of(
                "../x",
                "..",
                ".",
                "a/b",
                "a\\b",
                "",
                "x".repeat(65),
                "ünïcödé",
                "日本",
                "a\u0000b",
                "/etc",
                ".hidden",
                "-dash",
                "tab\tx");
        for (String id : hostile) {
            assertThrows(IllegalArgumentException.class, () -> workspace.tenantDir(id), id);
            assertThrows(IllegalArgumentException.class, () -> workspace.userDir("acme", id), id);
            assertThrows(IllegalArgumentException.class, () -> workspace.toolResultFile("acme", id), id);
            assertThrows(IllegalArgumentException.class, () -> workspace.dialogFile("acme", "alice", id), id);
        }
        assertThrows(IllegalArgumentException.class, () -> workspace.dialogFile("acme", "alice", "+12026-01-01"));
        assertThrows(IllegalArgumentException.class, () -> workspace.dialogFile("acme", "alice", "2026-1-1"));
    }

    @Test
    void reservedDeviceNamesAreEncodedAndNeverCollide() {
        assertEquals(Path.of("/srv/ws/_CON"), workspace.tenantDir("CON"));
        assertEquals(Path.of("/srv/ws/acme/_nul.txt"), workspace.userDir("acme", "nul.txt"));
        assertEquals(Path.of("/srv/ws/acme/_com1"), workspace.userDir("acme", "com1"));
        assertEquals(Path.of("/srv/ws/acme/_a."), workspace.userDir("acme", "a."));
        assertEquals(Path.of("/srv/ws/acme/tool_result/_AUX.txt"), workspace.toolResultFile("acme", "AUX"));
        assertEquals(Path.of("/srv/ws/acme/console"), workspace.userDir("acme", "console"));
        assertEquals(Optional.of("CON"), Workspace.idOf("_CON"));
        assertEquals(Optional.empty(), Workspace.idOf("_alice"), "only encoded names start with _");
        assertEquals(Optional.empty(), Workspace.idOf("CON"), "a reserved name is never written bare");
    }

    @Test
    void everyPathStaysInsideItsTenantFolder() {
        Path tenant = workspace.tenantDir("acme");
        for (String id : List.of("a", "a..b", "CON", "x".repeat(64), "a.b.c")) {
            assertTrue(workspace.userDir("acme", id).startsWith(tenant));
            assertTrue(workspace.toolResultFile("acme", id).startsWith(tenant));
            assertTrue(workspace.documentFile(DocumentKey.longTerm("acme", id)).startsWith(tenant));
        }
    }

    @Test
    void documentsAreRecognisedOnlyAtTheirPlace() {
        assertEquals(
                Optional.of(DocumentKey.longTerm("acme", "alice")),
                workspace.documentAt(Path.of("/srv/ws/acme/alice/MEMORY.md")));
        assertEquals(
                Optional.of(DocumentKey.longTerm("CON", "alice")),
                workspace.documentAt(Path.of("/srv/ws/_CON/alice/MEMORY.md")));
        assertEquals(
                Optional.of(DocumentKey.daily("acme", "alice", LocalDate.of(2026, 11, 30))),
                workspace.documentAt(Path.of("/srv/ws/acme/alice/memory/2026-11-30.md")));
        for (String other : List.of(
                "/srv/ws/acme/MEMORY.md",
                "/srv/ws/acme/alice/notes.md",
                "/srv/ws/acme/alice/memory/notes.md",
                "/srv/ws/.state/acme/alice/MEMORY.md",
                "/srv/ws/acme/alice/memory/.2026-11-30.md1.tmp",
                "/srv/other/acme/alice/MEMORY.md",
                "/srv/ws/acme/alice/dialog/2026-11-30.jsonl")) {
            assertEquals(Optional.empty(), workspace.documentAt(Path.of(other)), other);
        }
    }
}
