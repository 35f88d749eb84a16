package io.reme.worker;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

/**
 * How the worker pool runs: how many calls at once, how long one call may take, how many attempts
 * a request gets and how the wait between them grows, the summary budget, how many requests may
 * wait in memory before the pool stops fetching, how often a diary edit may lose a race before the
 * request fails, and the zone that dates conversations.
 */
public record WorkerSettings(
        int concurrency,
        Duration callTimeout,
        int maxAttempts,
        Duration backoffBase,
        Duration backoffMax,
        int maxSummaryTokens,
        int queueLimit,
        int maxDiaryConflicts,
        ZoneId zone) {

    public WorkerSettings {
        if (concurrency < 1 || maxAttempts < 1 || maxSummaryTokens < 1 || queueLimit < 1 || maxDiaryConflicts < 0) {
            throw new IllegalArgumentException(
                    "concurrency, maxAttempts, maxSummaryTokens and queueLimit must be >= 1");
        }
        Objects.requireNonNull(callTimeout, "callTimeout");
        Objects.requireNonNull(zone, "zone");
        if (backoffBase.isNegative() || backoffMax.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("need 0 <= backoffBase <= backoffMax");
        }
    }

    public static WorkerSettings defaults() {
        return new WorkerSettings(
                4,
                Duration.ofSeconds(120),
                5,
                Duration.ofMillis(500),
                Duration.ofSeconds(30),
                4000,
                1000,
                5,
                ZoneId.of("UTC"));
    }
}
