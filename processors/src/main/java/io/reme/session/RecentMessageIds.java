package io.reme.session;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The message IDs a session has appended recently, so a client's retry of any of them is dropped,
 * not only a retry of the last one. Each append costs the same however long the session: one lookup,
 * two small writes, and once the window is full one lookup and two deletes for the ID that leaves it
 * (by count). Age is checked when an ID is looked up, so nothing scans for old entries; a session's
 * entries go when the session expires. Used by the task's stream thread only.
 */
final class RecentMessageIds {
    private static final StringSerializer KEYS = new StringSerializer();

    private final KeyValueStore<String, String> store;
    private final DedupWindow window;

    RecentMessageIds(KeyValueStore<String, String> store, DedupWindow window) {
        this.store = store;
        this.window = window;
    }

    /**
     * Whether {@code id} was appended to the session within the window: among its last {@code count}
     * messages ({@code nextSeq} is the sequence number the next one would get) and less than
     * {@code age} before {@code nowMs}.
     */
    boolean contains(SessionKey key, String id, long nextSeq, long nowMs) {
        String entry = store.get(idKey(key, id));
        if (entry == null) {
            return false;
        }
        int slash = entry.indexOf('/');
        long seq = Long.parseLong(entry.substring(0, slash));
        long appendedMs = Long.parseLong(entry.substring(slash + 1));
        return seq >= nextSeq - window.count()
                && nowMs - appendedMs < window.age().toMillis();
    }

    /** Remembers {@code id} as the message at {@code seq}, and forgets the one that left the window by count. */
    void remember(SessionKey key, String id, long seq, long nowMs) {
        store.put(idKey(key, id), SessionKey.padded(seq) + "/" + nowMs);
        store.put(seqKey(key, seq), id);
        long leaving = seq - window.count();
        if (leaving < 0) {
            return;
        }
        String old = store.get(seqKey(key, leaving));
        if (old == null) {
            return;
        }
        store.delete(seqKey(key, leaving));
        String entry = store.get(idKey(key, old));
        // The same ID may have been used again later (after leaving the window): keep that newer entry.
        if (entry != null && Long.parseLong(entry.substring(0, entry.indexOf('/'))) == leaving) {
            store.delete(idKey(key, old));
        }
    }

    /** Deletes everything remembered for the session (it expired); at most 2 x count entries. */
    void forget(SessionKey key) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, String> it = store.prefixScan(key.key() + "/", KEYS)) {
            it.forEachRemaining(entry -> keys.add(entry.key));
        }
        keys.forEach(store::delete);
    }

    private static String idKey(SessionKey key, String id) {
        return key.key() + "/i/" + id;
    }

    private static String seqKey(SessionKey key, long seq) {
        return key.key() + "/s/" + SessionKey.padded(seq);
    }
}
