package io.reme.provider;

import io.reme.message.Message;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * A diary update: the messages of a span of one session, whose user and conversation date choose
 * the documents ({@code memory/<date>.md} and {@code MEMORY.md}).
 */
public record DiaryTask(
        String tenant, String user, String session, LocalDate date, List<Message> messages, String language) {
    public DiaryTask {
        Objects.requireNonNull(date, "date");
        messages = List.copyOf(messages);
        Objects.requireNonNull(language, "language");
    }

    /** The same task over other messages (a part of the span the model refused as too long). */
    public DiaryTask withMessages(List<Message> part) {
        return new DiaryTask(tenant, user, session, date, part, language);
    }

    /** The day's document, as named to the model. */
    public String dailyDocument() {
        return "memory/" + date + ".md";
    }
}
