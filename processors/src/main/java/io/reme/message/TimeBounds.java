package io.reme.message;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The times a message may carry: not before {@code earliest}, and at most {@code maxSkew} ahead of
 * the clock of whoever accepts it. A time outside them would date an archive or a diary in the
 * year 9999 (or 1970) and, as a record timestamp, hold a pending compaction or its backoff for
 * ever; such input is refused with a reason instead of being changed. The lower bound is a fixed
 * instant rather than an age, so a message accepted once is accepted again when its topic is
 * replayed later (the upper bound only moves forward).
 *
 * @param earliest the earliest accepted time
 * @param maxSkew how far ahead of "now" a time may be (clocks of producers and processors differ)
 */
public record TimeBounds(Instant earliest, Duration maxSkew) {
    /** 2000-01-01T00:00:00Z and one day ahead. */
    public static final TimeBounds DEFAULT = new TimeBounds(Instant.parse("2000-01-01T00:00:00Z"), Duration.ofDays(1));
    /** Accepts every time; for tools that read what was accepted already (benchmarks, tests). */
    public static final TimeBounds NONE = new TimeBounds(Instant.MIN, Duration.ofSeconds(Long.MAX_VALUE));

    public TimeBounds {
        Objects.requireNonNull(earliest, "earliest");
        Objects.requireNonNull(maxSkew, "maxSkew");
        if (maxSkew.isNegative()) {
            throw new IllegalArgumentException("maxSkew must be >= 0, got " + maxSkew);
        }
    }

    /**
     * Why {@code time} is out of bounds when the clock reads {@code nowMs}, or null when it is within.
     *
     * @param what names the time in the message, e.g. {@code time}
     */
    public String problem(String what, Instant time, long nowMs) {
        if (time.isBefore(earliest)) {
            return what + " " + time + " is before " + earliest + ", the earliest accepted time";
        }
        Instant now = Instant.ofEpochMilli(nowMs);
        // Saturates instead of overflowing: Instant.MAX minus now is the most any skew can add.
        if (maxSkew.compareTo(Duration.between(now, Instant.MAX)) < 0 && time.isAfter(now.plus(maxSkew))) {
            return what + " " + time + " is more than " + maxSkew + " ahead of now (" + now + ")";
        }
        return null;
    }
}
