package io.reme.provider;

import io.reme.message.Message;
import io.reme.search.MemoryType;
import java.util.List;
import java.util.Objects;

/**
 * What one extractor reads: the span's messages of a user's session, and which kind of memory to
 * look for ({@code PERSONAL}, {@code PROCEDURAL} or {@code TOOL}).
 */
public record ExtractTask(
        String tenant, String user, String session, MemoryType type, List<Message> messages, String language) {
    public ExtractTask {
        Objects.requireNonNull(type, "type");
        messages = List.copyOf(messages);
        language = language == null ? "en" : language;
    }

    /** The same task over other messages (a part of the span the model refused as too long). */
    public ExtractTask withMessages(List<Message> part) {
        return new ExtractTask(tenant, user, session, type, part, language);
    }
}
