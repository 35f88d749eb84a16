package io.reme.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's {@code group.instance.id}: generated once and kept in {@code <data-dir>/streams-instance-id}
 * (owner-only), so an instance restarted on the same data directory rejoins its Streams group as the
 * same static member and gets its tasks back at once, instead of waiting for the group to give up on
 * the member that died. Two instances must never share a data directory (the second would be fenced).
 */
public final class InstanceId {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceId.class);
    public static final String FILE = "streams-instance-id";

    private InstanceId() {}

    /** Reads the id kept in {@code dataDir}, or makes and keeps one. */
    public static String loadOrCreate(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        try {
            if (Files.exists(file)) {
                String existing = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (existing.matches("[A-Za-z0-9._-]{8,200}")) {
                    return existing;
                }
                LOG.warn("instance id file unreadable, making a new one file={}", file);
                Files.delete(file);
            }
            byte[] random = new byte[12];
            new SecureRandom().nextBytes(random);
            String id = "reme-" + HexFormat.of().formatHex(random);
            Files.createDirectories(dataDir);
            try {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(file);
            } catch (FileAlreadyExistsException e) {
                return loadOrCreate(dataDir);
            }
            Files.writeString(file, id + "\n", StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
            LOG.info("instance id generated instanceId={} file={}", id, file);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the instance id in " + file, e);
        }
    }
}
