package io.reme.workspace;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DocumentKey;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What the diary sink last put in each document file, kept under {@code root/.state}: the version,
 * its edit ID and the SHA-256 of the bytes written, a copy of those bytes (the base a hand edit
 * started from), and a newer version held back because the file holds a hand edit not yet published.
 * The watch compares a file with this record to tell a person's edit from the sink's own write.
 *
 * <p>The sink writes the document file first and this record second. A reader that looks in between
 * sees a file newer than its record; an edit built from that is based on an older version than the
 * current one and is refused by the single writer, so the race can cost a log line, never content.
 */
public final class DocumentLedger {
    /** The version in a document file as the sink wrote it. */
    public record Written(long version, String editId, String sha256) {}

    private static final String WRITTEN = ".json";
    private static final String BASE = ".base.md";
    private static final String HELD = ".held.json";

    private final Workspace workspace;

    public DocumentLedger(Workspace workspace) {
        this.workspace = workspace;
    }

    public Optional<Written> written(DocumentKey key) throws IOException {
        return read(key, WRITTEN).map(bytes -> parse(bytes, Written.class));
    }

    /** The content of the version last written (empty if none): the base of a hand edit. */
    public String base(DocumentKey key) throws IOException {
        return read(key, BASE).map(b -> new String(b, StandardCharsets.UTF_8)).orElse("");
    }

    public Optional<DiaryDocument> held(DocumentKey key) throws IOException {
        return read(key, HELD).map(bytes -> parse(bytes, DiaryDocument.class));
    }

    private Optional<byte[]> read(DocumentKey key, String suffix) throws IOException {
        return AtomicFiles.readIfExists(workspace, workspace.stateFile(key, suffix));
    }

    /** Forgets the document (it was erased): a later version 1 is then a new document, not an old one. */
    void forget(DocumentKey key) throws IOException {
        for (String suffix : new String[] {WRITTEN, BASE, HELD}) {
            AtomicFiles.deleteIfExists(workspace, workspace.stateFile(key, suffix));
        }
    }

    void recordWritten(DiaryDocument document, byte[] content) throws IOException {
        DocumentKey key = document.key();
        AtomicFiles.write(workspace, workspace.stateFile(key, BASE), content);
        AtomicFiles.write(
                workspace,
                workspace.stateFile(key, WRITTEN),
                Json.MAPPER.writeValueAsBytes(new Written(document.version(), document.editId(), sha256(content))));
        AtomicFiles.deleteIfExists(workspace, workspace.stateFile(key, HELD));
    }

    void hold(DiaryDocument document) throws IOException {
        AtomicFiles.write(
                workspace, workspace.stateFile(document.key(), HELD), Json.MAPPER.writeValueAsBytes(document));
    }

    public static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static <T> T parse(byte[] bytes, Class<T> type) {
        try {
            return Json.MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            throw new IllegalStateException("unreadable sink state " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
