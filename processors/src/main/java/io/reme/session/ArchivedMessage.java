package io.reme.session;

import io.reme.message.Message;
import java.util.Objects;

/**
 * A message that left the window, as written to the {@code dialog} topic: after a successful
 * compaction ({@code summaryRequestId} names it) or when its session expired ({@code null}).
 * {@code date} is the conversation's date (message time in the configured zone), which is the file
 * it is archived in.
 */
public record ArchivedMessage(
        String tenant, String session, String user, String date, long seq, String summaryRequestId, Message message) {
    public ArchivedMessage {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(date, "date");
    }
}
