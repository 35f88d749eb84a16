package io.reme.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A memory as the API serves it ({@code GET /v1/memories/{id}}, a page of {@code GET /v1/memories}).
 *
 * @param id unique within the tenant; never changes on an edit
 * @param type {@code personal}, {@code procedural}, {@code tool}, {@code diary_chunk} or {@code dialog_chunk}
 * @param target the user, task or tool name it is about
 * @param user its user, or null
 * @param session the session it came from, or null
 * @param content its text
 * @param metadata its metadata (empty when none)
 * @param createdAt when it was written
 * @param updatedAt when it was last edited
 * @param conversationTime when what it remembers was said, or null
 * @param version 1, and 1 more with every edit
 * @param history earlier contents, newest first (empty when none)
 * @param sources the spans of dialog it was extracted from, oldest first (empty when none)
 */
public record Memory(
        String id,
        String type,
        String target,
        String user,
        String session,
        String content,
        Map<String, String> metadata,
        Instant createdAt,
        Instant updatedAt,
        Instant conversationTime,
        long version,
        List<Revision> history,
        List<SourceSpan> sources) {
    public Memory {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        history = history == null ? List.of() : List.copyOf(history);
        sources = sources == null ? List.of() : List.copyOf(sources);
    }
}
