package io.reme.diary;

import java.time.Instant;
import java.util.Objects;

/**
 * A request to replace a document's text, valid only if the document is still at
 * {@code baseVersion} (0 = does not exist yet). {@code author} names who wrote it (a request ID or
 * {@code human}).
 */
public record DiaryEdit(
        String editId,
        String tenant,
        String user,
        String name,
        long baseVersion,
        String content,
        String author,
        Instant at) {
    public DiaryEdit {
        Objects.requireNonNull(editId, "editId");
        Objects.requireNonNull(content, "content");
        if (baseVersion < 0) {
            throw new IllegalArgumentException("baseVersion must be >= 0");
        }
        new DocumentKey(tenant, user, name);
    }

    public DocumentKey key() {
        return new DocumentKey(tenant, user, name);
    }
}
