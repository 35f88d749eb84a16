package io.reme.diary;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.reme.search.SourceSpan;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A document's current text and version (1 for the first write), with the edit that produced it, as
 * kept in the {@code diary} topic (compacted) and the {@code diary-documents} store. {@code sources} are the
 * spans of dialog its edits were written from, the newest {@value SourceSpan#MAX_SPANS} (a model rewrites the
 * document as a whole, so the provenance is the document's, not a line's); every chunk of it carries them.
 */
public record DiaryDocument(
        String tenant,
        String user,
        String name,
        String content,
        long version,
        String editId,
        String author,
        Instant updatedAt,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SourceSpan> sources) {
    public DiaryDocument {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(editId, "editId");
        sources = sources == null ? List.of() : List.copyOf(sources);
    }

    public DocumentKey key() {
        return new DocumentKey(tenant, user, name);
    }
}
