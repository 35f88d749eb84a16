package io.reme.diary;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.reme.search.SourceSpan;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A request to replace a document's text, valid only if the document is still at
 * {@code baseVersion} (0 = does not exist yet). {@code author} names who wrote it (a request ID or
 * {@code human}). {@code sources} are the spans of dialog a worker's edit was written from (none for a
 * person's edit); the document adds them to its own ({@link DiaryDocument#sources}).
 */
public record DiaryEdit(
        String editId,
        String tenant,
        String user,
        String name,
        long baseVersion,
        String content,
        String author,
        Instant at,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SourceSpan> sources) {
    public DiaryEdit {
        Objects.requireNonNull(editId, "editId");
        Objects.requireNonNull(content, "content");
        sources = sources == null ? List.of() : List.copyOf(sources);
        if (baseVersion < 0) {
            throw new IllegalArgumentException("baseVersion must be >= 0");
        }
        new DocumentKey(tenant, user, name);
    }

    public DocumentKey key() {
        return new DocumentKey(tenant, user, name);
    }
}
