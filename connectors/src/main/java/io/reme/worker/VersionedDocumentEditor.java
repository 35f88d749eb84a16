package io.reme.worker;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.DocumentKey;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.search.SourceSpan;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * The {@link DocumentEditor} of one diary task: reads come from the latest known versions, changes
 * stay local until {@link #commit}, which submits each changed document as an edit based on the
 * version that was read. Used by one thread.
 */
final class VersionedDocumentEditor implements DocumentEditor {
    private final DiaryDocuments documents;
    private final Map<String, DocumentKey> names = new LinkedHashMap<>();
    private final Map<String, Working> working = new LinkedHashMap<>();
    /** What every edit of this task is written from: the task's messages. */
    private final List<SourceSpan> sources;

    private static final class Working {
        final long baseVersion;
        final String original;
        String content;

        Working(long baseVersion, String original) {
            this.baseVersion = baseVersion;
            this.original = original;
            this.content = original;
        }
    }

    VersionedDocumentEditor(DiaryTask task, DiaryDocuments documents) {
        this.documents = documents;
        names.put(task.dailyDocument(), DocumentKey.daily(task.tenant(), task.user(), task.date()));
        names.put(LONG_TERM, DocumentKey.longTerm(task.tenant(), task.user()));
        SourceSpan span = SourceSpan.of(task.messages());
        this.sources = span == null ? List.of() : List.of(span);
    }

    private Working open(String document) {
        DocumentKey key = names.get(document);
        if (key == null) {
            throw new IllegalArgumentException(
                    "unknown document '" + document + "'; this task may use " + String.join(" and ", names.keySet()));
        }
        return working.computeIfAbsent(document, d -> {
            DiaryDocument current = documents.get(key).orElse(null);
            return current == null ? new Working(0, "") : new Working(current.version(), current.content());
        });
    }

    @Override
    public String read(String document) {
        return open(document).content;
    }

    @Override
    public void write(String document, String content) {
        open(document).content = content == null ? "" : content;
    }

    @Override
    public void edit(String document, String oldText, String newText) {
        Working doc = open(document);
        if (oldText == null || oldText.isEmpty()) {
            throw new IllegalArgumentException("old_text must not be empty");
        }
        int first = doc.content.indexOf(oldText);
        if (first < 0) {
            throw new IllegalArgumentException("old_text was not found in " + document + "; read it again");
        }
        if (doc.content.indexOf(oldText, first + 1) >= 0) {
            throw new IllegalArgumentException(
                    "old_text occurs more than once in " + document + "; include more surrounding text");
        }
        doc.content = doc.content.substring(0, first)
                + (newText == null ? "" : newText)
                + doc.content.substring(first + oldText.length());
    }

    /**
     * Submits every changed document.
     *
     * @return the number of documents whose edit lost a race (0 = everything applied)
     */
    int commit(String author, Instant at, Duration timeout) throws InterruptedException, TimeoutException {
        int lost = 0;
        for (Map.Entry<String, Working> entry : working.entrySet()) {
            Working doc = entry.getValue();
            if (doc.content.equals(doc.original)) {
                continue;
            }
            DocumentKey key = names.get(entry.getKey());
            DiaryEdit edit = new DiaryEdit(
                    UUID.randomUUID().toString(),
                    key.tenant(),
                    key.user(),
                    key.name(),
                    doc.baseVersion,
                    doc.content,
                    author,
                    at,
                    sources);
            if (!documents.submit(edit, timeout)) {
                lost++;
            }
        }
        return lost;
    }

    int changedDocuments() {
        return (int) working.values().stream()
                .filter(w -> !w.content.equals(w.original))
                .count();
    }
}
