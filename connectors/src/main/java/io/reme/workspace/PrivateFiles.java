package io.reme.workspace;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folders only their owner can enter ({@code rwx------}) and files only their owner can read
 * ({@code rw-------}), for everything that holds tenants' data: the working directory, the embedded
 * broker's logs, the Streams state, the Connect offsets, the API key. A JVM cannot set its own
 * umask, so folders are created with their permissions and existing trees are tightened at start;
 * files that libraries create later keep the process umask but sit in folders no one else can enter.
 * On a file system without POSIX permissions (Windows) every method does nothing more than create.
 */
public final class PrivateFiles {
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final FileAttribute<Set<PosixFilePermission>> DIRECTORY_ATTRIBUTE =
            PosixFilePermissions.asFileAttribute(DIRECTORY);
    private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);

    private PrivateFiles() {}

    /** Like {@link Files#createDirectories}, with every folder it creates {@code rwx------}; existing ones are left. */
    public static Path createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        if (Files.isDirectory(absolute)) {
            return absolute;
        }
        Path parent = absolute.getParent();
        if (parent != null) {
            createDirectories(parent);
        }
        createDirectory(absolute);
        return absolute;
    }

    /** Creates one folder {@code rwx------}; an existing folder (or link to one) is fine. */
    static void createDirectory(Path dir) throws IOException {
        try {
            if (posix(dir.getParent() == null ? dir : dir.getParent())) {
                Files.createDirectory(dir, DIRECTORY_ATTRIBUTE);
            } else {
                Files.createDirectory(dir);
            }
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir)) {
                throw e;
            }
        }
    }

    /**
     * Creates {@code dir} if needed and takes every permission for group and others away from it and
     * everything under it: folders become {@code rwx------}, files keep only their owner's permissions
     * ({@code rw-r--r--} becomes {@code rw-------}). Links are not followed. Returns how many entries were changed.
     */
    public static int tighten(Path dir) throws IOException {
        Path root = createDirectories(dir);
        if (!posix(root)) {
            return 0;
        }
        int[] changed = {0};
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path folder, BasicFileAttributes attributes) throws IOException {
                changed[0] += restrict(folder, DIRECTORY) ? 1 : 0;
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile()) {
                    changed[0] += restrict(file, FILE) ? 1 : 0;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                // Removed while walking (a broker's segment being deleted): nothing left to protect.
                return FileVisitResult.CONTINUE;
            }
        });
        if (changed[0] > 0) {
            LOG.info("permissions tightened dir={} entries={}", root, changed[0]);
        }
        return changed[0];
    }

    /** Makes a file {@code rw-------}. */
    public static void restrictFile(Path file) throws IOException {
        if (posix(file)) {
            restrict(file, FILE);
        }
    }

    /** Takes group and other permissions away; a folder also gets all of its owner's (0700). */
    private static boolean restrict(Path path, Set<PosixFilePermission> wanted) throws IOException {
        Set<PosixFilePermission> current = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> owner = EnumSet.noneOf(PosixFilePermission.class);
        current.stream().filter(p -> p.name().startsWith("OWNER_")).forEach(owner::add);
        if (wanted.contains(PosixFilePermission.OWNER_EXECUTE)) {
            owner.addAll(wanted);
        }
        if (owner.equals(current)) {
            return false;
        }
        Files.setPosixFilePermissions(path, owner);
        return true;
    }

    static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
