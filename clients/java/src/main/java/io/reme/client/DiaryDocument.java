package io.reme.client;

import java.time.Instant;
import java.util.List;

/**
 * A user's diary of one conversation date, or their {@code MEMORY.md}, at its latest version.
 *
 * @param user the user
 * @param path {@code memory/YYYY-MM-DD.md} or {@code MEMORY.md}
 * @param version its version
 * @param updatedAt when it was last written
 * @param author who wrote that version
 * @param content the Markdown
 * @param editId the edit that made this version
 * @param sources the spans of dialog the workers' edits were written from (empty when none)
 */
public record DiaryDocument(
        String user,
        String path,
        long version,
        Instant updatedAt,
        String author,
        String content,
        String editId,
        List<SourceSpan> sources) {
    public DiaryDocument {
        sources = sources == null ? List.of() : List.copyOf(sources);
    }
}
