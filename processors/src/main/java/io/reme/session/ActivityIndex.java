package io.reme.session;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The activity store as three indexes over one ordered key space, each a time then the session
 * ({@code <19-digit ms>/tenant/session}): sessions by the second they went quiet (digits first), by
 * when a compaction is due to be looked at again ({@code r}), and by the second they went quiet once
 * that quiet spell was handled, in the order they expire ({@code x}). A session is in exactly one of
 * the first and the last. Used by the task's stream thread only.
 */
final class ActivityIndex {
    private static final String EXPIRY_PREFIX = "x";
    /**
     * The index of sessions with a compaction to look at again at a time (a failed one's backoff, a
     * pending one's timeout), so that a quiet session is re-planned without waiting for a message.
     */
    private static final String RETRY_PREFIX = "r";

    /** One index entry: its store key, which holds its time and its session after {@code prefix} characters. */
    record Entry(String storeKey, int prefix) {
        long ms() {
            return Long.parseLong(storeKey.substring(prefix, prefix + 19));
        }

        SessionKey session() {
            return SessionKey.parse(storeKey.substring(prefix + 20));
        }
    }

    private final KeyValueStore<String, String> activity;

    ActivityIndex(KeyValueStore<String, String> activity) {
        this.activity = activity;
    }

    /**
     * The session was active at {@code activeMs}, last before at {@code previousMs}. The index keeps whole
     * seconds: a session's next messages within the same second find their entry in place and rewrite nothing.
     */
    void active(SessionKey key, long previousMs, long activeMs) {
        String active = activityKey(activitySecond(activeMs), key);
        if (activitySecond(previousMs) != activitySecond(activeMs) || activity.get(active) == null) {
            forget(key, previousMs);
            activity.put(active, "");
        }
    }

    /** The session's quiet spell since {@code lastActiveMs} was handled: it now waits to expire. */
    void expireLater(SessionKey key, long lastActiveMs) {
        activity.put(expiryKey(activitySecond(lastActiveMs), key), "");
    }

    /** The session's compaction is to be looked at again at {@code at}. */
    void retryAt(SessionKey key, Instant at) {
        activity.put(retryKey(at.toEpochMilli(), key), "");
    }

    /** Removes the session from whichever of the quiet and expiry indexes holds it. */
    void forget(SessionKey key, long lastActiveMs) {
        if (lastActiveMs <= 0) {
            return;
        }
        long second = activitySecond(lastActiveMs);
        String idle = activityKey(second, key);
        if (activity.get(idle) != null) {
            activity.delete(idle);
        } else {
            activity.delete(expiryKey(second, key));
        }
    }

    void delete(Entry entry) {
        activity.delete(entry.storeKey());
    }

    /** Retries due at {@code nowMs} or before, oldest first. */
    List<Entry> retriesDue(long nowMs) {
        return entries(retryKey(0, null), retryKey(nowMs + 1, null), RETRY_PREFIX.length());
    }

    /** Sessions quiet since before {@code ms} whose quiet spell was not handled, quietest first. */
    List<Entry> quietBefore(long ms) {
        return entries(activityKey(0, null), activityKey(ms, null), 0);
    }

    /** Sessions quiet since before {@code ms} that wait to expire, quietest first. */
    List<Entry> expiringBefore(long ms) {
        return entries(expiryKey(0, null), expiryKey(ms, null), EXPIRY_PREFIX.length());
    }

    /**
     * Whether an entry is older than the session's last activity: an entry written with a finer clock
     * before an upgrade, left behind when the session moved on. It is dropped, never acted on.
     */
    static boolean stale(SessionHeader header, Entry entry) {
        return activitySecond(header.lastActiveMs()) > activitySecond(entry.ms());
    }

    private List<Entry> entries(String from, String until, int prefix) {
        List<Entry> entries = new ArrayList<>();
        try (KeyValueIterator<String, String> it = activity.range(from, until)) {
            it.forEachRemaining(entry -> entries.add(new Entry(entry.key, prefix)));
        }
        return entries;
    }

    /**
     * A session's last activity as the indexes keep it: rounded up to the second, so a session is found
     * idle at most a second late (the sweep runs far less often).
     */
    private static long activitySecond(long ms) {
        return ms <= 0 ? ms : Math.ceilDiv(ms, 1000L) * 1000L;
    }

    private static String activityKey(long ms, SessionKey key) {
        return SessionKey.padded(Math.max(0, ms)) + "/" + (key == null ? "" : key.key());
    }

    /** Sorts after every idle key (digits) and before the expiry index ({@code x}). */
    private static String retryKey(long ms, SessionKey key) {
        return RETRY_PREFIX + activityKey(ms, key);
    }

    /** Sorts after every idle key (digits), so the idle range never reaches into the expiry index. */
    private static String expiryKey(long ms, SessionKey key) {
        return EXPIRY_PREFIX + activityKey(ms, key);
    }
}
