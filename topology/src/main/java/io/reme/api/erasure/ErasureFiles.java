package io.reme.api.erasure;

import io.reme.workspace.Workspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What an erasure left in the working directory: the files the file sinks have not deleted yet. */
final class ErasureFiles {
    private ErasureFiles() {}

    /**
     * The user's (or, with {@code user} null, the tenant's) files written before {@code requestedAt},
     * relative to the workspace, at most {@code limit}: the file sinks delete them once they reach the
     * erasure's marker, which after a crash can be long after every partition reported. Files written
     * after the request are a new session's, not the erasure's. Links are not followed.
     */
    static List<String> olderThan(Workspace workspace, String tenant, String user, Instant requestedAt, int limit) {
        Path folder = user == null ? workspace.tenantDir(tenant) : workspace.userDir(tenant, user);
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<String> older = new ArrayList<>();
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (older.size() >= limit) {
                    break;
                }
                BasicFileAttributes attributes;
                try {
                    attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException deleted) {
                    continue;
                }
                if (attributes.isRegularFile()
                        && attributes.lastModifiedTime().toInstant().isBefore(requestedAt)) {
                    older.add(workspace.root().relativize(file).toString());
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // Being deleted under the walk: say so rather than call it done.
            return List.of(
                    workspace.root().relativize(folder) + " (" + e.getClass().getSimpleName() + ")");
        }
        return older;
    }
}
