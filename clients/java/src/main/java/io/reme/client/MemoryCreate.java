package io.reme.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The body of {@code POST /v1/memories}: a personal, procedural or tool memory. Start from {@link #personal}, {@link
 * #procedural} or {@link #tool} and add the rest with the {@code with} methods.
 *
 * @param type {@code personal}, {@code procedural} or {@code tool}
 * @param content the memory's text
 * @param target the user, task or tool name it is about (a personal memory defaults to its user)
 * @param user its user, or null
 * @param session the session it came from, or null
 * @param conversationTime when what it remembers was said, or null
 * @param metadata string metadata, or null
 * @param context text around it that helps find it (not part of the memory), or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MemoryCreate(
        String type,
        String content,
        String target,
        String user,
        String session,
        Instant conversationTime,
        Map<String, String> metadata,
        String context) {
    private static final Set<String> TYPES = Set.of("personal", "procedural", "tool");

    public MemoryCreate {
        if (!TYPES.contains(type)) {
            throw new IllegalArgumentException("type must be one of " + TYPES + ", got " + type);
        }
        Objects.requireNonNull(content, "content");
        metadata = metadata == null ? null : Map.copyOf(metadata);
    }

    /** A memory about a user. */
    public static MemoryCreate personal(String user, String content) {
        return new MemoryCreate("personal", content, null, user, null, null, null, null);
    }

    /** How to do a task ({@code target}: the task). */
    public static MemoryCreate procedural(String task, String content) {
        return new MemoryCreate("procedural", content, task, null, null, null, null, null);
    }

    /** How a tool behaves ({@code target}: the tool). */
    public static MemoryCreate tool(String toolName, String content) {
        return new MemoryCreate("tool", content, toolName, null, null, null, null, null);
    }

    public MemoryCreate withTarget(String value) {
        return new MemoryCreate(type, content, value, user, session, conversationTime, metadata, context);
    }

    public MemoryCreate withUser(String value) {
        return new MemoryCreate(type, content, target, value, session, conversationTime, metadata, context);
    }

    public MemoryCreate withSession(String value) {
        return new MemoryCreate(type, content, target, user, value, conversationTime, metadata, context);
    }

    public MemoryCreate withConversationTime(Instant value) {
        return new MemoryCreate(type, content, target, user, session, value, metadata, context);
    }

    public MemoryCreate withMetadata(Map<String, String> value) {
        return new MemoryCreate(type, content, target, user, session, conversationTime, value, context);
    }

    public MemoryCreate withContext(String value) {
        return new MemoryCreate(type, content, target, user, session, conversationTime, metadata, value);
    }
}
