package io.reme.workspace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * Replaces a file so that a reader (or a crash) sees either the old or the new content, never a
 * mix: the bytes go to a temporary file in the same folder, are forced to disk, and the temporary
 * file is renamed over the target; the folder is forced too so the rename itself survives a crash.
 */
public final class AtomicFiles {
    private AtomicFiles() {
    }

    public static void write(Path target, byte[] content) throws IOException {
        write(target, content, null);
    }

    /** Like {@link #write(Path, byte[])}, with the file's modification time set to {@code modified}. */
    public static void write(Path target, byte[] content, FileTime modified) throws IOException {
        Path dir = target.getParent();
        Files.createDirectories(dir);
        // A dot name: the watch and the users' tools skip it; the target name keeps it unique per file.
        Path temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
        try {
            writeForced(temp, content, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            if (modified != null) {
                Files.setLastModifiedTime(temp, modified);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
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
    public static void appendForced(Path target, byte[] content) throws IOException {
        writeForced(target, content, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    private static void writeForced(Path file, byte[] content, StandardOpenOption... options) throws IOException {
        try (FileChannel channel = FileChannel.open(file, options)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    /** The file's bytes, or empty if there is no such file. */
    public static Optional<byte[]> readIfExists(Path file) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory; the rename is still atomic there, only its durability is weaker.
        }
    }
}
