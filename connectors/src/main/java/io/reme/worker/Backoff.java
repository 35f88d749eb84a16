package io.reme.worker;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: before attempt {@code n} (1-based, n >= 2) wait a uniformly
 * random time in {@code [0, min(max, base * 2^(n-2))]}, so retries of many requests failing together
 * spread out instead of hitting the provider in waves.
 */
final class Backoff {
    private final Duration base;
    private final Duration max;
    private final RandomGenerator random;

    Backoff(Duration base, Duration max, RandomGenerator random) {
        this.base = base;
        this.max = max;
        this.random = random;
    }

    Duration before(int attempt) {
        if (attempt <= 1 || base.isZero()) {
            return Duration.ZERO;
        }
        long ceiling = base.toMillis();
        for (int i = 2; i < attempt && ceiling < max.toMillis(); i++) {
            ceiling *= 2;
        }
        ceiling = Math.min(ceiling, max.toMillis());
        return Duration.ofMillis(random.nextLong(ceiling + 1));
    }
}
