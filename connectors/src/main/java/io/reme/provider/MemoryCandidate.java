package io.reme.provider;

import io.reme.search.MemoryType;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Something an extractor found worth remembering: its type, the target it is about (user name,
 * task name or tool name), the content, when it was said, and metadata. A personal candidate may
 * name what it is {@value #ABOUT} (e.g. "green tea"), so a later statement about the same thing
 * can be recognised as a contradiction.
 */
public record MemoryCandidate(
        MemoryType type, String target, String content, Instant conversationTime, Map<String, String> metadata) {
    /** Metadata key: the subject of a personal statement. */
    public static final String ABOUT = "about";

    public MemoryCandidate {
        Objects.requireNonNull(type, "type");
        if (target == null || target.isBlank()) {
            throw new IllegalArgumentException("a candidate needs a target");
        }
        if (content == null || content.isBlank()) {
            throw new IllegalArgumentException("a candidate needs content");
        }
        metadata = metadata == null ? Map.of() : Map.copyOf(new TreeMap<>(metadata));
    }
}
