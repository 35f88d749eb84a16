package io.reme.diary;

import java.time.Instant;
import java.util.Objects;

/**
 * A document's current text and version (1 for the first write), with the edit that produced it, as
 * kept in the {@code diary} topic (compacted) and the {@code diary-documents} store.
 */
public record DiaryDocument(
        String tenant,
        String user,
        String name,
        String content,
        long version,
        String editId,
        String author,
        Instant updatedAt) {
    public DiaryDocument {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(editId, "editId");
    }

    public DocumentKey key() {
        return new DocumentKey(tenant, user, name);
    }
}
