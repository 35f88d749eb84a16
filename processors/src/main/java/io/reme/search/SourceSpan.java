package io.reme.search;

import io.reme.message.Message;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A run of one session's messages that something was made from: the provenance of a diary document and of
 * its chunks, and of an extracted memory. A span is contiguous in its session (a compaction's, or the part of
 * it of one day), so its first and last message ids name every message between them in the session's dialog
 * archive, where each line carries its session and message id.
 *
 * @param session the session
 * @param firstMessageId the id of the span's first message
 * @param lastMessageId the id of its last message
 * @param messages how many messages it holds
 * @param from the time of its first message
 * @param to the time of its last message
 */
public record SourceSpan(
        String session, String firstMessageId, String lastMessageId, int messages, Instant from, Instant to) {

    /**
     * Most spans a record keeps, newest last: a busy user's day is written from many compactions, and a
     * record's provenance is there to lead back to the dialog, not to list every span of a year.
     */
    public static final int MAX_SPANS = 32;

    public SourceSpan {
        SafeId.require("session", session);
        Objects.requireNonNull(firstMessageId, "firstMessageId");
        Objects.requireNonNull(lastMessageId, "lastMessageId");
        if (messages < 1) {
            throw new IllegalArgumentException("a span holds at least one message, got " + messages);
        }
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
    }

    /** The span of {@code messages} (in the session's order, all of one session), or null for none. */
    public static SourceSpan of(List<Message> messages) {
        if (messages.isEmpty()) {
            return null;
        }
        Message first = messages.get(0);
        Message last = messages.get(messages.size() - 1);
        return new SourceSpan(first.session(), first.id(), last.id(), messages.size(), first.time(), last.time());
    }

    /**
     * {@code kept} followed by those of {@code added} it does not hold yet, the newest {@link #MAX_SPANS}: what a
     * record made again from more dialog names (a span written twice, by a retried request, is named once).
     */
    public static List<SourceSpan> merge(List<SourceSpan> kept, List<SourceSpan> added) {
        if (added.isEmpty() || kept.containsAll(added)) {
            return kept;
        }
        List<SourceSpan> all = new ArrayList<>(kept);
        for (SourceSpan span : added) {
            if (!all.contains(span)) {
                all.add(span);
            }
        }
        return List.copyOf(all.subList(Math.max(0, all.size() - MAX_SPANS), all.size()));
    }
}
