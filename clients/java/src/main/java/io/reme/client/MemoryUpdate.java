package io.reme.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Map;

/**
 * The body of {@code PUT /v1/memories/{id}}: the fields to change (null: unchanged) and, optionally, the version
 * the change is based on (the server answers 409 {@code version_conflict} if the memory moved on).
 *
 * @param content the new text, or null
 * @param target the new target, or null
 * @param metadata the new metadata (replaces it), or null
 * @param conversationTime the new conversation time, or null
 * @param version the version read, or null for an unconditional edit
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MemoryUpdate(
        String content, String target, Map<String, String> metadata, Instant conversationTime, Long version) {
    public MemoryUpdate {
        metadata = metadata == null ? null : Map.copyOf(metadata);
    }

    /** A new text. */
    public static MemoryUpdate content(String value) {
        return new MemoryUpdate(value, null, null, null, null);
    }

    public MemoryUpdate withTarget(String value) {
        return new MemoryUpdate(content, value, metadata, conversationTime, version);
    }

    public MemoryUpdate withMetadata(Map<String, String> value) {
        return new MemoryUpdate(content, target, value, conversationTime, version);
    }

    public MemoryUpdate withConversationTime(Instant value) {
        return new MemoryUpdate(content, target, metadata, value, version);
    }

    /** Only if the memory is still at this version. */
    public MemoryUpdate ifVersion(long value) {
        return new MemoryUpdate(content, target, metadata, conversationTime, value);
    }
}
