package io.reme.retry;

import java.time.Duration;
import java.util.Optional;

/**
 * The one way the service waits for something to become visible (a write in a store, an index's applied
 * offset, a connector running): try, and try again every {@code every} until an attempt answers or
 * {@code timeout} has passed. An attempt is always made at least once, and never after the deadline.
 */
public final class Poll {
    /** One look (which may block): the value once it is there, empty while it is not. */
    @FunctionalInterface
    public interface Attempt<T, E extends Exception> {
        Optional<T> get() throws E, InterruptedException;
    }

    /** One look (which may block) that answers yes or no. */
    @FunctionalInterface
    public interface Check<E extends Exception> {
        boolean holds() throws E, InterruptedException;
    }

    private Poll() {}

    /**
     * The first value an attempt answers, or empty when {@code timeout} passes first.
     *
     * @throws E what an attempt throws, at once
     * @throws InterruptedException when interrupted between two attempts (the interrupt flag is cleared)
     */
    public static <T, E extends Exception> Optional<T> first(Duration timeout, Duration every, Attempt<T, E> attempt)
            throws E, InterruptedException {
        if (timeout.isNegative() || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("timeout must be >= 0 and every > 0: " + timeout + ", " + every);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = attempt.get();
            if (value.isPresent()) {
                return value;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            Thread.sleep(Math.max(1, Math.min(every.toMillis(), left / 1_000_000)));
        }
    }

    /** Whether {@code check} held before {@code timeout} passed. */
    public static <E extends Exception> boolean until(Duration timeout, Duration every, Check<E> check)
            throws E, InterruptedException {
        return first(timeout, every, () -> check.holds() ? Optional.of(Boolean.TRUE) : Optional.empty())
                .isPresent();
    }
}
