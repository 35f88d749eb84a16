package io.reme.api.diary;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.reme.diary.DiaryDocument;
import io.reme.search.SourceSpan;
import java.time.Instant;
import java.util.List;

/**
 * A diary document as the HTTP API shows it: its path in the user's folder rather than its key, and the spans of
 * dialog it was written from (left out when there are none).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record DiaryView(
        String user,
        String path,
        long version,
        Instant updatedAt,
        String author,
        String editId,
        String content,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SourceSpan> sources) {

    static DiaryView of(DiaryDocument document) {
        return new DiaryView(
                document.user(),
                document.key().path(),
                document.version(),
                document.updatedAt(),
                document.author(),
                document.editId(),
                document.content(),
                document.sources());
    }
}
