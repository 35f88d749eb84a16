package io.reme.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTest {
    @TempDir
    Path dir;

    @TempDir
    Path outside;

    @BeforeEach
    void posix() throws IOException {
        Assumptions.assumeTrue(Files.getFileStore(dir).supportsFileAttributeView("posix"));
    }

    private static String permissions(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static Path with(Path path, String permissions) throws IOException {
        return Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    }

    @Test
    void newFoldersAreTheOwnersOnly() throws IOException {
        Path deep = PrivateFiles.createDirectories(dir.resolve("a/b/c"));
        for (Path folder : new Path[] {dir.resolve("a"), dir.resolve("a/b"), deep}) {
            assertEquals("rwx------", permissions(folder), folder.toString());
        }
    }

    @Test
    void anOlderTreeIsTightenedWithoutFollowingLinks() throws IOException {
        Path data = with(Files.createDirectories(dir.resolve("data/kafka/logs")), "rwxr-xr-x");
        with(dir.resolve("data/kafka"), "rwxr-x---");
        with(dir.resolve("data"), "rwxrwxrwx");
        Path segment = with(Files.writeString(data.resolve("0.log"), "x"), "rw-r--r--");
        Path readOnly = with(Files.writeString(data.resolve("ro"), "x"), "r--r--r--");
        Path target = with(Files.writeString(outside.resolve("shared.txt"), "x"), "rw-r--r--");
        Files.createSymbolicLink(data.resolve("link"), target);

        assertEquals(5, PrivateFiles.tighten(dir.resolve("data")));
        assertEquals("rwx------", permissions(dir.resolve("data")));
        assertEquals("rwx------", permissions(data));
        assertEquals("rw-------", permissions(segment));
        assertEquals("r--------", permissions(readOnly), "the owner's own permissions are kept");
        assertEquals("rw-r--r--", permissions(target), "a link's target is not ours to change");
        assertEquals(0, PrivateFiles.tighten(dir.resolve("data")), "nothing left to change");
    }
}
