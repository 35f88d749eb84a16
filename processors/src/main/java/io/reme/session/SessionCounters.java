package io.reme.session;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.EnumMap;
import java.util.Map;

/** Per-session counts of what happened, served with the context so operators can see it. */
public record SessionCounters(Map<Counter, Long> values) {

    /** The events counted per session. */
    public enum Counter {
        MESSAGES,
        DUPLICATE_MESSAGES,
        TRUNCATED_OUTPUTS,
        COMPACTIONS_REQUESTED,
        COMPACTIONS_APPLIED,
        COMPACTIONS_FAILED,
        COMPACTIONS_TIMED_OUT,
        DUPLICATE_RESULTS,
        STALE_RESULTS,
        INVALID_SUMMARIES,
        NO_VALID_CUT,
        /** COMPACT results whose request ID this deployment's secret did not issue: refused, dead-lettered. */
        FORGED_RESULTS,
        /** Signed results of the session's earlier life (before an erasure): refused, dead-lettered. */
        EARLIER_RESULTS,
        /** A span's diary update or memory extraction came back FAILED (it is sent again after a backoff). */
        DIARY_FAILURES,
        /** A span was given up after {@code reme.diary.max-failures} failures and dead-lettered. */
        DIARY_DEAD_LETTERED,
        /** Tool calls compacted without their results, once they were too old to keep waiting for them. */
        UNANSWERED_CALLS,
        /** Compaction spans halved because the model refused a prompt as longer than its context. */
        SPANS_SHRUNK
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public SessionCounters {
        EnumMap<Counter, Long> copy = new EnumMap<>(Counter.class);
        if (values != null) {
            copy.putAll(values);
        }
        values = Map.copyOf(copy);
    }

    public static SessionCounters zero() {
        return new SessionCounters(Map.of());
    }

    public SessionCounters plus(Counter counter) {
        return plus(counter, 1);
    }

    public SessionCounters plus(Counter counter, long amount) {
        if (amount == 0) {
            return this;
        }
        EnumMap<Counter, Long> copy = new EnumMap<>(Counter.class);
        copy.putAll(values);
        copy.merge(counter, amount, Long::sum);
        return new SessionCounters(copy);
    }

    public long get(Counter counter) {
        return values.getOrDefault(counter, 0L);
    }

    @Override
    @JsonValue
    public Map<Counter, Long> values() {
        return values;
    }
}
