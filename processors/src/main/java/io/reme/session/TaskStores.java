package io.reme.session;

import io.reme.message.Message;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The session stores of one task, as every part of the session rules sees them: attached once per
 * processor and shared, so the parts never disagree about what a session holds. Used by the task's
 * stream thread only.
 *
 * @param headers {@link SessionStores#HEADERS}
 * @param messages {@link SessionStores#MESSAGES}
 * @param summaries {@link SessionStores#SUMMARIES}
 * @param activity {@link SessionStores#ACTIVITY}, read and written through {@link ActivityIndex}
 * @param diarySpans {@link SessionStores#DIARY_SPANS}
 * @param recentIds {@link SessionStores#MESSAGE_IDS}, the message IDs that drop client retries
 */
record TaskStores(
        KeyValueStore<String, SessionHeader> headers,
        KeyValueStore<String, StoredMessage> messages,
        KeyValueStore<String, String> summaries,
        KeyValueStore<String, String> activity,
        KeyValueStore<String, DiarySpan> diarySpans,
        RecentMessageIds recentIds) {

    /** The stores of the task {@code context} belongs to, as {@link SessionStores#all()} declares them. */
    static TaskStores attach(ProcessorContext<?, ?> context, DedupWindow dedup) {
        return new TaskStores(
                context.getStateStore(SessionStores.HEADERS),
                context.getStateStore(SessionStores.MESSAGES),
                context.getStateStore(SessionStores.SUMMARIES),
                context.getStateStore(SessionStores.ACTIVITY),
                context.getStateStore(SessionStores.DIARY_SPANS),
                new RecentMessageIds(context.getStateStore(SessionStores.MESSAGE_IDS), dedup));
    }

    /** The session's summary text, or "" before its first compaction. */
    String summary(SessionKey key) {
        String summary = summaries.get(key.key());
        return summary == null ? "" : summary;
    }

    /** Live messages in order; read only when a plan is needed, never on a plain append. */
    List<StoredMessage> window(SessionKey key, SessionHeader header) {
        List<StoredMessage> window = new ArrayList<>(header.liveCount());
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(header.window().firstLiveSeq()), key.messageKey(Long.MAX_VALUE))) {
            it.forEachRemaining(entry -> window.add(entry.value));
        }
        return window;
    }

    /** The stored messages {@code fromSeq..toSeq} (both included) that are still live. */
    List<Message> messages(SessionKey key, long fromSeq, long toSeq) {
        List<Message> held = new ArrayList<>();
        try (KeyValueIterator<String, StoredMessage> it =
                messages.range(key.messageKey(fromSeq), key.messageKey(toSeq))) {
            it.forEachRemaining(entry -> held.add(entry.value.message()));
        }
        return held;
    }

    /** The session's unsettled diary spans, oldest first. */
    List<DiarySpan> diarySpans(SessionKey key) {
        List<DiarySpan> spans = new ArrayList<>();
        try (KeyValueIterator<String, DiarySpan> it =
                diarySpans.range(key.messageKey(0), key.messageKey(Long.MAX_VALUE))) {
            it.forEachRemaining(entry -> spans.add(entry.value));
        }
        return spans;
    }
}
