package io.reme.workspace;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DocumentKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes diary documents into their files, whole, newest version only, without erasing a hand
 * edit: while a file differs from what was last written there (a person changed it and the watch
 * has not published it yet), a newer version from anyone else is held back in the
 * {@link DocumentLedger} instead of written. It is written once the person's edit (or the merge of
 * both, which the watch builds) comes back as a version derived from the file's current content.
 */
public final class DocumentFiles {
    /** What {@link #apply} did. */
    public enum Outcome {
        WRITTEN,
        ALREADY_APPLIED,
        HELD
    }

    private static final Logger LOG = LoggerFactory.getLogger(DocumentFiles.class);
    private static final String HUMAN = "human-";

    private final Workspace workspace;
    private final DocumentLedger ledger;

    public DocumentFiles(Workspace workspace) {
        this.workspace = workspace;
        this.ledger = new DocumentLedger(workspace);
    }

    public Outcome apply(DiaryDocument document) throws IOException {
        DocumentKey key = document.key();
        Optional<DocumentLedger.Written> written = ledger.written(key);
        if (written.isPresent() && document.version() <= written.get().version()) {
            return Outcome.ALREADY_APPLIED;
        }
        Path file = workspace.documentFile(key);
        byte[] content = document.content().getBytes(StandardCharsets.UTF_8);
        byte[] onDisk = AtomicFiles.readIfExists(workspace, file).orElse(null);
        boolean handEdited = onDisk != null
                && !Arrays.equals(onDisk, content)
                && (written.isEmpty() || !written.get().sha256().equals(DocumentLedger.sha256(onDisk)));
        if (handEdited && !document.editId().startsWith(humanEditPrefix(onDisk))) {
            Optional<DiaryDocument> held = ledger.held(key);
            if (held.isEmpty() || held.get().version() < document.version()) {
                ledger.hold(document);
            }
            LOG.info(
                    "document held back: file has an unpublished hand edit tenant={} user={} document={} version={}",
                    key.tenant(),
                    key.user(),
                    key.name(),
                    document.version());
            return Outcome.HELD;
        }
        AtomicFiles.write(workspace, file, content);
        ledger.recordWritten(document, content);
        return Outcome.WRITTEN;
    }

    /**
     * Deletes a document's file and what the ledger keeps about it (the document was erased); returns
     * whether the file was there. A hand edit of the file goes with it: erasure outranks it.
     */
    public boolean delete(DocumentKey key) throws IOException {
        boolean deleted = AtomicFiles.deleteIfExists(workspace, workspace.documentFile(key));
        ledger.forget(key);
        LOG.info(
                "document deleted tenant={} user={} document={} existed={}",
                key.tenant(),
                key.user(),
                key.name(),
                deleted);
        return deleted;
    }

    /**
     * The edit ID of a hand edit: names the file content it was built from and the version it is
     * based on, so the same edit is never submitted twice and the sink recognises its result.
     */
    public static String humanEditId(byte[] fileContent, long baseVersion) {
        return humanEditPrefix(fileContent) + baseVersion;
    }

    public static boolean isHumanEdit(String editId) {
        return editId.startsWith(HUMAN);
    }

    private static String humanEditPrefix(byte[] fileContent) {
        return HUMAN + DocumentLedger.sha256(fileContent).substring(0, 16) + "-";
    }
}
