package io.reme.workspace;

import io.reme.diary.DocumentKey;
import io.reme.message.SafeId;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The layout of the working directory, and the only place IDs become file names:
 * <pre>
 * root/tenant/user/MEMORY.md
 * root/tenant/user/memory/YYYY-MM-DD.md
 * root/tenant/user/dialog/YYYY-MM-DD.jsonl
 * root/tenant/tool_result/id.txt
 * root/.state/...            (what the sinks wrote; not for users)
 * </pre>
 * Every ID must be a {@link SafeId} (so no separators, no {@code ..}, no unicode, at most 64
 * characters); names Windows reserves ({@code CON}, {@code nul.txt}, {@code COM1}) and names ending in a
 * dot are written with a leading {@code _}, which no ID can start with, so encoded names never collide
 * with real ones. Every resolved path is checked to lie inside its tenant's folder as well.
 *
 * <p>The names are text; what is on disk is checked by {@link #refuseLinks} and
 * {@link #createDirectories}, which every read and write in the working directory goes through
 * ({@link AtomicFiles}): below the root, no part of a path may be a symbolic link (or a device or
 * pipe), so a link a user plants in their folder can never send a sink's write, or the watch's
 * read, outside the working directory. The root itself is configured, not planted, and may be a link.
 */
public final class Workspace {
    public static final String TOOL_RESULTS = "tool_result";
    static final String STATE = ".state";
    private static final Set<String> RESERVED = Set.of(
            "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6",
            "COM7", "COM8", "COM9", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9");

    private final Path root;

    public Workspace(Path root) {
        this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    public Path tenantDir(String tenant) {
        return inside(root, root.resolve(folder("tenant", tenant)));
    }

    public Path userDir(String tenant, String user) {
        Path tenantDir = tenantDir(tenant);
        return inside(tenantDir, tenantDir.resolve(folder("user", user)));
    }

    /** {@code MEMORY.md} or {@code memory/YYYY-MM-DD.md} of the document's user. */
    public Path documentFile(DocumentKey key) {
        Path userDir = userDir(key.tenant(), key.user());
        return inside(userDir, userDir.resolve(key.path()));
    }

    public Path dialogFile(String tenant, String user, String date) {
        Path userDir = userDir(tenant, user);
        return inside(userDir, userDir.resolve("dialog").resolve(canonicalDate(date) + ".jsonl"));
    }

    public Path toolResultDir(String tenant) {
        Path tenantDir = tenantDir(tenant);
        return inside(tenantDir, tenantDir.resolve(TOOL_RESULTS));
    }

    public Path toolResultFile(String tenant, String toolResultId) {
        Path dir = toolResultDir(tenant);
        return inside(dir, dir.resolve(folder("tool result id", toolResultId) + ".txt"));
    }

    /** Where the sinks keep what they wrote for a document; outside every tenant's folder. */
    Path stateFile(DocumentKey key, String suffix) {
        Path state = root.resolve(STATE);
        Path file = state.resolve(folder("tenant", key.tenant()))
                .resolve(folder("user", key.user()))
                .resolve(key.name() + suffix);
        return inside(state, file);
    }

    /** The document a file under the root stands for, if it is a diary or {@code MEMORY.md} at its place. */
    public Optional<DocumentKey> documentAt(Path file) {
        Path relative;
        try {
            relative = root.relativize(file.toAbsolutePath().normalize());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int parts = relative.getNameCount();
        Optional<String> tenant = parts >= 3 ? idOf(relative.getName(0).toString()) : Optional.empty();
        Optional<String> user = parts >= 3 ? idOf(relative.getName(1).toString()) : Optional.empty();
        if (tenant.isEmpty() || user.isEmpty()) {
            return Optional.empty();
        }
        String last = relative.getFileName().toString();
        if (parts == 3 && last.equals("MEMORY.md")) {
            return Optional.of(DocumentKey.longTerm(tenant.get(), user.get()));
        }
        if (parts == 4 && relative.getName(2).toString().equals("memory") && last.endsWith(".md")) {
            String name = last.substring(0, last.length() - 3);
            try {
                return Optional.of(DocumentKey.daily(tenant.get(), user.get(), LocalDate.parse(canonicalDate(name))));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * The folder or file name for an ID.
     *
     * @throws IllegalArgumentException if the ID is not a {@link SafeId}
     */
    static String folder(String field, String id) {
        String problem = SafeId.problem(field, id);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return needsEscape(id) ? "_" + id : id;
    }

    /** The ID a folder name stands for, or empty if no ID is written that way. */
    static Optional<String> idOf(String folder) {
        String id = folder.startsWith("_") ? folder.substring(1) : folder;
        return SafeId.isSafe(id) && folder("id", id).equals(folder) ? Optional.of(id) : Optional.empty();
    }

    private static boolean needsEscape(String id) {
        int dot = id.indexOf('.');
        String stem = (dot < 0 ? id : id.substring(0, dot)).toUpperCase(Locale.ROOT);
        return RESERVED.contains(stem) || id.endsWith(".");
    }

    /** Only {@code YYYY-MM-DD} as {@link LocalDate#toString} writes it: no signs, no five-digit years. */
    private static String canonicalDate(String date) {
        if (isCanonicalDate(date)) {
            return date;
        }
        throw new IllegalArgumentException("date must be YYYY-MM-DD, got '" + date + "'");
    }

    private static boolean isCanonicalDate(String date) {
        try {
            return date != null
                    && date.matches("\\d{4}-\\d{2}-\\d{2}")
                    && LocalDate.parse(date).toString().equals(date);
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    /**
     * Checks on disk that {@code path} stays in the working directory: every part of it below the root
     * that exists must be a plain folder (the last part a folder or a regular file). The check and the
     * use that follows are two steps, so the last part is also opened without following links
     * ({@link AtomicFiles}); a folder swapped for a link between the two steps is not caught, which
     * needs a person racing the sink inside their own folder.
     *
     * @return {@code path}, absolute and normalised
     * @throws RefusedPathException if a part is a link or neither a folder nor a file
     * @throws IllegalArgumentException if the path does not lie under the root at all
     */
    public Path refuseLinks(Path path) throws IOException {
        Path normal = path.toAbsolutePath().normalize();
        if (!normal.startsWith(root)) {
            throw new IllegalArgumentException("path " + path + " leaves " + root);
        }
        Path current = root;
        for (Path part : root.relativize(normal)) {
            if (part.toString().isEmpty()) {
                break;
            }
            current = current.resolve(part);
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(current, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                // Nothing below a missing part exists, so nothing below it can be a link.
                return normal;
            }
            if (attributes.isSymbolicLink()) {
                throw new RefusedPathException(normal, current, "is a symbolic link");
            }
            boolean last = current.equals(normal);
            if (!attributes.isDirectory() && !(last && attributes.isRegularFile())) {
                throw new RefusedPathException(normal, current, last ? "is not a regular file" : "is not a folder");
            }
        }
        return normal;
    }

    /**
     * Creates {@code dir} and the folders above it up to the root, each {@code rwx------}, refusing
     * to pass through a link. An existing folder keeps its permissions.
     */
    public Path createDirectories(Path dir) throws IOException {
        Path normal = refuseLinks(dir);
        PrivateFiles.createDirectories(root);
        Path current = root;
        for (Path part : root.relativize(normal)) {
            if (part.toString().isEmpty()) {
                break;
            }
            current = current.resolve(part);
            try {
                PrivateFiles.createDirectory(current);
            } catch (FileAlreadyExistsException e) {
                // Created as a file or link after the check: report what is there.
                refuseLinks(current);
                throw e;
            }
        }
        // A link put in place of a folder after the first check passes createDirectory (the name exists).
        return refuseLinks(normal);
    }

    /**
     * The dialog files ({@code dialog/YYYY-MM-DD.jsonl}) of one user of a tenant ({@code user} set) or of
     * every user of the tenant ({@code user} null), as they are on disk now; a link where a folder or
     * file should be is refused.
     */
    public List<Path> dialogFiles(String tenant, String user) throws IOException {
        List<Path> users = new ArrayList<>();
        if (user != null) {
            users.add(userDir(tenant, user));
        } else {
            Path tenantDir = refuseLinks(tenantDir(tenant));
            if (Files.isDirectory(tenantDir, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> folders = Files.list(tenantDir)) {
                    // A link in place of a user's folder is not walked into; the tenant's erasure deletes it as a link.
                    folders.filter(folder ->
                                    idOf(folder.getFileName().toString()).isPresent()
                                            && Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS))
                            .forEach(users::add);
                }
            }
        }
        List<Path> files = new ArrayList<>();
        for (Path userDir : users) {
            Path dialog = refuseLinks(userDir.resolve("dialog"));
            if (!Files.isDirectory(dialog, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (Stream<Path> list = Files.list(dialog)) {
                list.filter(file -> isDialogFile(file) && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS))
                        .sorted()
                        .forEach(files::add);
            }
        }
        return files;
    }

    /** Whether {@code file} is at a dialog file's place: {@code tenant/user/dialog/YYYY-MM-DD.jsonl}. */
    public boolean isDialogFile(Path file) {
        Path relative = root.relativize(file.toAbsolutePath().normalize());
        String name = relative.getFileName().toString();
        return relative.getNameCount() == 4
                && relative.getName(2).toString().equals("dialog")
                && name.endsWith(".jsonl")
                && isCanonicalDate(name.substring(0, name.length() - ".jsonl".length()));
    }

    /**
     * What an erasure of {@code at} removes from the files of one user of a tenant ({@code user} set: the
     * user's folder, {@code MEMORY.md}, diaries) or of the whole tenant ({@code user} null: the tenant's
     * folder, tool outputs included), besides the dialog files ({@code spared}): every file last changed at
     * or before {@code at}, and what the sinks keep about them under {@code .state}; then every folder
     * there left empty. A file written after the erasure stays, so applying the same erasure again deletes
     * nothing new. Links inside are removed as links, whatever their time, never followed; a link on the way
     * there is refused. Returns the number of files deleted; deleting what is already gone is no error.
     */
    public int eraseChangedBy(String tenant, String user, Instant at, Predicate<Path> spared) throws IOException {
        Path target = user == null ? tenantDir(tenant) : userDir(tenant, user);
        Path stateRoot = root.resolve(STATE);
        Path stateTenant = inside(stateRoot, stateRoot.resolve(folder("tenant", tenant)));
        Path state = user == null ? stateTenant : inside(stateTenant, stateTenant.resolve(folder("user", user)));
        FileTime limit = FileTime.from(at);
        return deleteTree(refuseLinks(target), limit, spared) + deleteTree(refuseLinks(state), limit, spared);
    }

    private static int deleteTree(Path dir, FileTime limit, Predicate<Path> spared) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        int[] files = {0};
        // walkFileTree does not follow links: a link is visited as a file and deleted as a link.
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isSymbolicLink()
                        || (!spared.test(file) && attributes.lastModifiedTime().compareTo(limit) <= 0)) {
                    if (Files.deleteIfExists(file)) {
                        files[0]++;
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException failure) throws IOException {
                if (failure != null) {
                    throw failure;
                }
                try {
                    Files.deleteIfExists(directory);
                } catch (DirectoryNotEmptyException e) {
                    // Something written since the erasure is in it: the folder stays with it.
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return files[0];
    }

    /** The last line of defence: whatever an ID held, the path stays below {@code parent}. */
    private static Path inside(Path parent, Path path) {
        Path normal = path.normalize();
        if (!normal.startsWith(parent) || normal.equals(parent)) {
            throw new IllegalArgumentException("path " + path + " leaves " + parent);
        }
        return normal;
    }
}
