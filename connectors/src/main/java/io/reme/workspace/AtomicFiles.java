package io.reme.workspace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * Replaces a file so that a reader (or a crash) sees either the old or the new content, never a
 * mix: the bytes go to a temporary file in the same folder, are forced to disk, and the temporary
 * file is renamed over the target; the folder is forced too so the rename itself survives a crash.
 *
 * <p>Every operation takes the {@link Workspace} the file lies in and refuses a path that passes
 * through a link ({@link Workspace#refuseLinks}); files are opened without following links, and new
 * files and folders are private to their owner ({@code rw-------}, {@code rwx------}).
 */
public final class AtomicFiles {
    private AtomicFiles() {}

    public static void write(Workspace workspace, Path target, byte[] content) throws IOException {
        write(workspace, target, content, null);
    }

    /** Like {@link #write(Workspace, Path, byte[])}, with the file's modification time set to {@code modified}. */
    public static void write(Workspace workspace, Path target, byte[] content, FileTime modified) throws IOException {
        Path file = workspace.refuseLinks(target);
        Path dir = workspace.createDirectories(file.getParent());
        // A dot name: the watch and the users' tools skip it; the target name keeps it unique per file.
        // Temporary files are created rw------- on POSIX file systems.
        Path temp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            writeForced(
                    temp,
                    content,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    LinkOption.NOFOLLOW_LINKS);
            if (modified != null) {
                Files.setLastModifiedTime(temp, modified);
            }
            // A rename replaces a link at the target rather than writing through it.
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        forceDirectory(dir);
    }

    /**
     * Appends to an existing file and forces the bytes to disk. Not atomic: a crash can leave part of
     * {@code content} at the end, which the caller must be able to tell from a whole record.
     */
    public static void appendForced(Workspace workspace, Path target, byte[] content) throws IOException {
        writeForced(
                workspace.refuseLinks(target),
                content,
                StandardOpenOption.WRITE,
                StandardOpenOption.APPEND,
                LinkOption.NOFOLLOW_LINKS);
    }

    /** Cuts the file to its first {@code length} bytes and forces that to disk; never a linked file. */
    public static void truncateForced(Workspace workspace, Path target, long length) throws IOException {
        try (FileChannel channel =
                FileChannel.open(workspace.refuseLinks(target), StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            channel.truncate(length);
            channel.force(true);
        }
    }

    private static void writeForced(Path file, byte[] content, OpenOption... options) throws IOException {
        try (FileChannel channel = FileChannel.open(file, options)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    /** The file's bytes, or empty if there is no such file. */
    public static Optional<byte[]> readIfExists(Workspace workspace, Path file) throws IOException {
        Path checked = workspace.refuseLinks(file);
        try (InputStream in = Files.newInputStream(checked, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of(in.readAllBytes());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The file's attributes (the file itself, not what a link points to), or empty if there is no such file. */
    public static Optional<BasicFileAttributes> attributesIfExists(Workspace workspace, Path file) throws IOException {
        Path checked = workspace.refuseLinks(file);
        try {
            return Optional.of(Files.readAttributes(checked, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Deletes the file if it exists; never a file a link in its path leads to. */
    public static boolean deleteIfExists(Workspace workspace, Path file) throws IOException {
        return Files.deleteIfExists(workspace.refuseLinks(file));
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory; the rename is still atomic there, only its durability is weaker.
        }
    }
}
