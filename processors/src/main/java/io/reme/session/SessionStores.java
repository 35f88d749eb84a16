package io.reme.session;

import io.reme.json.JsonSerde;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The logged RocksDB stores of a session window. Headers are keyed {@code tenant/session};
 * messages {@code tenant/session/<19-digit seq>}, so one session's messages are a contiguous,
 * ordered range and an append writes one small entry instead of rewriting the window.
 */
public final class SessionStores {
    public static final String HEADERS = "session-headers";
    public static final String MESSAGES = "session-messages";
    /** {@code tenant/session} → the current summary text, written only when a compaction is applied. */
    public static final String SUMMARIES = "session-summaries";
    /**
     * {@code <19-digit last active ms>/tenant/session} → "": sessions in the order they went quiet;
     * once a quiet spell has been handled the entry moves to {@code x<19-digit ms>/tenant/session},
     * the order in which sessions expire.
     */
    public static final String ACTIVITY = "session-activity";
    /**
     * The session's recently appended message IDs, to drop client retries: {@code tenant/session/i/<id>}
     * → {@code <19-digit seq>/<ms appended>} and {@code tenant/session/s/<19-digit seq>} → the ID (to
     * forget the oldest). See {@link RecentMessageIds}.
     */
    public static final String MESSAGE_IDS = "session-message-ids";
    /**
     * {@code tenant/session/<19-digit first seq>} → {@link DiarySpan}: spans sent for a diary update and
     * a memory extraction whose outcome is not settled; small, since settled spans are deleted.
     */
    public static final String DIARY_SPANS = "session-diary-spans";

    private SessionStores() {}

    /** Every store the two session processors share, each to be attached to both. */
    public static List<StoreBuilder<?>> all() {
        return List.of(headers(), messages(), summaries(), activity(), messageIds(), diarySpans());
    }

    public static StoreBuilder<KeyValueStore<String, SessionHeader>> headers() {
        // Rewritten on every message: the cache turns a commit interval's rewrites into one changelog record.
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(HEADERS), Serdes.String(), new SessionHeaderSerde())
                .withLoggingEnabled(Map.of())
                .withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<String, String>> summaries() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SUMMARIES), Serdes.String(), Serdes.String())
                .withLoggingEnabled(Map.of());
    }

    public static StoreBuilder<KeyValueStore<String, String>> activity() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ACTIVITY), Serdes.String(), Serdes.String())
                .withLoggingEnabled(Map.of())
                .withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<String, String>> messageIds() {
        // Each key is written once and deleted count messages later, so the cache absorbs no changelog
        // record; it turns a message's four RocksDB writes into part of one write batch per commit.
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(MESSAGE_IDS), Serdes.String(), Serdes.String())
                .withLoggingEnabled(Map.of())
                .withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<String, DiarySpan>> diarySpans() {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(DIARY_SPANS), Serdes.String(), JsonSerde.of(DiarySpan.class))
                .withLoggingEnabled(Map.of());
    }

    public static StoreBuilder<KeyValueStore<String, StoredMessage>> messages() {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(MESSAGES), Serdes.String(), new StoredMessageSerde())
                .withLoggingEnabled(Map.of())
                // A tool output is cut to the old limit when the next message without one arrives, usually
                // within the same commit: with the cache only the cut form reaches RocksDB and the changelog.
                .withCachingEnabled();
    }
}
