package io.reme.api.tenant;

/**
 * A rate limit: {@code rate} tokens a second, holding at most one second's worth. A take succeeds
 * while the bucket holds what it asks for (or a full bucket, for a batch bigger than one second's
 * worth, which then leaves the bucket in debt that later takes wait out), so the long-run rate is
 * {@code rate} whatever the batch sizes. Thread-safe.
 */
final class TokenBucket {
    private final double rate;
    private final double capacity;
    private double tokens;
    private long lastNanos;

    TokenBucket(double rate, long nowNanos) {
        this.rate = rate;
        this.capacity = Math.max(1, rate);
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    double rate() {
        return rate;
    }

    /** Takes {@code count} tokens and returns 0, or takes nothing and returns the nanoseconds to wait. */
    synchronized long take(int count, long nowNanos) {
        tokens = Math.min(capacity, tokens + (nowNanos - lastNanos) / 1e9 * rate);
        lastNanos = nowNanos;
        double needed = Math.min(count, capacity);
        if (tokens >= needed) {
            tokens -= count;
            return 0;
        }
        return (long) Math.ceil((needed - tokens) / rate * 1e9);
    }
}
