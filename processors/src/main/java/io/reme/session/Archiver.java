package io.reme.session;

import io.reme.message.Message;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Moves live messages out of the window to the {@code dialog} topic, each dated by the conversation in
 * the configured zone (the day names the dialog file it is archived in). A diary span that still reads
 * them by reference takes its copy first. Used by the task's stream thread only.
 */
final class Archiver {
    private final KeyValueStore<String, StoredMessage> messages;
    private final DiarySpans diary;
    private final SessionOutputs outputs;
    private final DateTimeFormatter day;

    Archiver(KeyValueStore<String, StoredMessage> messages, DiarySpans diary, SessionOutputs outputs, ZoneId zone) {
        this.messages = messages;
        this.diary = diary;
        this.outputs = outputs;
        this.day = DateTimeFormatter.ISO_LOCAL_DATE.withZone(zone);
    }

    /** How many messages left the window, and their tokens. */
    record Archived(int count, long tokens) {}

    /**
     * Archives the live messages {@code fromSeq..toSeq} and deletes them from the window.
     *
     * @param incarnation the session's incarnation, which each archived line names with the task's partition
     * @param summaryRequestId the compaction that summarised them, or null (the session expired)
     */
    Archived archive(
            SessionKey key, long incarnation, long fromSeq, long toSeq, String summaryRequestId, long timestamp) {
        ArchivedMessage.Origin origin = new ArchivedMessage.Origin(outputs.partition(), incarnation);
        diary.copyBeforeArchiving(key, fromSeq, toSeq);
        int count = 0;
        long archivedTokens = 0;
        List<String> covered = new ArrayList<>();
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(fromSeq), key.messageKey(toSeq))) {
            while (it.hasNext()) {
                KeyValue<String, StoredMessage> entry = it.next();
                StoredMessage stored = entry.value;
                Message message = stored.message();
                outputs.archive(
                        key,
                        new ArchivedMessage(
                                key.tenant(),
                                key.session(),
                                message.user(),
                                day.format(message.time()),
                                stored.seq(),
                                summaryRequestId,
                                message,
                                origin),
                        timestamp);
                covered.add(entry.key);
                count++;
                archivedTokens += stored.tokens();
            }
        }
        covered.forEach(messages::delete);
        return new Archived(count, archivedTokens);
    }
}
