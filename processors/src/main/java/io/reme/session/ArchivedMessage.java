package io.reme.session;

import io.reme.message.Message;
import java.util.Objects;

/**
 * A message that left the window, as written to the {@code dialog} topic: after a successful
 * compaction ({@code summaryRequestId} names it) or when its session expired ({@code null}).
 * {@code date} is the conversation's date (message time in the configured zone), which is the file
 * it is archived in. {@code origin} says which life of the session it was said in, so that an erasure
 * marker deletes the lines of the sessions it erased and none of a session begun since under the same ID;
 * null in lines archived before it was written.
 */
public record ArchivedMessage(
        String tenant,
        String session,
        String user,
        String date,
        long seq,
        String summaryRequestId,
        Message message,
        Origin origin) {
    public ArchivedMessage {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(date, "date");
    }

    /**
     * Where the session was kept: the partition of {@code messages} and the session's incarnation there (1 +
     * the offset of the message that began it; 0 for a session begun before incarnations were kept).
     */
    public record Origin(int partition, long incarnation) {}
}
