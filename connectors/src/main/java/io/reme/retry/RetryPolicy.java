package io.reme.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * How a call that can fail for a while is tried again: at most {@code maxAttempts} attempts; before
 * attempt {@code n >= 2} a wait drawn uniformly from {@code [ceiling * (1 - jitter), ceiling]}, where
 * {@code ceiling = min(maxBackoff, initialBackoff * 2^(n-2))}; and only the failures {@code retryable}
 * accepts are tried again. Jitter 1 is "full jitter": retries of many calls that failed together
 * spread out instead of hitting the provider in waves.
 *
 * <p>{@link #call} runs the usual loop. A caller whose loop has a rule of its own (an attempt that
 * does not count) walks the attempts itself with {@link #attempts()}. The {@link Sleeper} is the seam
 * tests use to run without waiting. Immutable; thread-safe as long as {@code random} is (the default,
 * {@link Random}, is).
 *
 * @param retryable whether a failed attempt is worth another; the others end the call at once
 */
public record RetryPolicy(
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        double jitter,
        Predicate<? super Exception> retryable,
        Sleeper sleeper,
        RandomGenerator random) {

    /** Waits between attempts; {@link #THREAD} in production, a recorder in tests. */
    @FunctionalInterface
    public interface Sleeper {
        Sleeper THREAD = duration -> {
            if (!duration.isZero()) {
                Thread.sleep(duration);
            }
        };

        void sleep(Duration duration) throws InterruptedException;
    }

    /** One attempt, told its number (1-based). */
    @FunctionalInterface
    public interface Attempt<T, X extends Exception> {
        T run(int attempt) throws X, InterruptedException;
    }

    /** Hears of every failed attempt, retryable or not, before the policy decides what comes next. */
    @FunctionalInterface
    public interface FailureListener {
        FailureListener NONE = (attempt, failure) -> {};

        void failed(int attempt, Exception failure);
    }

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1");
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("need 0 <= initialBackoff <= maxBackoff");
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("jitter must be within [0, 1]");
        }
        Objects.requireNonNull(retryable, "retryable");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(random, "random");
    }

    /** Exponential backoff with full jitter, sleeping the calling thread. */
    public static RetryPolicy exponential(
            int maxAttempts, Duration initialBackoff, Duration maxBackoff, Predicate<? super Exception> retryable) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, 1.0, retryable, Sleeper.THREAD, new Random());
    }

    public RetryPolicy withSleeper(Sleeper sleeper) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, jitter, retryable, sleeper, random);
    }

    public RetryPolicy withRandom(RandomGenerator random) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, jitter, retryable, sleeper, random);
    }

    public RetryPolicy withJitter(double jitter) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, jitter, retryable, sleeper, random);
    }

    /** Whether this failure is worth another attempt. */
    public boolean retries(Exception failure) {
        return retryable.test(failure);
    }

    /** The wait before attempt {@code attempt} (1-based): none before the first. */
    public Duration delayBefore(int attempt) {
        if (attempt <= 1 || initialBackoff.isZero()) {
            return Duration.ZERO;
        }
        long max = maxBackoff.toMillis();
        long ceiling = initialBackoff.toMillis();
        for (int i = 2; i < attempt && ceiling < max; i++) {
            ceiling *= 2;
        }
        ceiling = Math.min(ceiling, max);
        long floor = Math.round(ceiling * (1 - jitter));
        return Duration.ofMillis(floor + random.nextLong(ceiling - floor + 1));
    }

    /**
     * Runs {@code attempt} until it returns, fails with a failure that is not retryable (thrown at once), or
     * has used every attempt (the last failure is thrown). So a retryable failure that comes out of here means
     * the attempts ran out: {@code retries(e)} tells the two apart. Runtime exceptions the policy does not
     * retry pass through unchanged; an interrupt ends the call.
     *
     * @param listener hears of each failed attempt
     */
    public <T, X extends Exception> T call(Attempt<T, X> attempt, FailureListener listener)
            throws X, InterruptedException {
        Attempts attempts = attempts();
        Exception last = null;
        while (attempts.next()) {
            try {
                return attempt.run(attempts.number());
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                listener.failed(attempts.number(), e);
                if (!retries(e)) {
                    throw RetryPolicy.<X>rethrow(e);
                }
                last = e;
            }
        }
        throw RetryPolicy.<X>rethrow(last);
    }

    public <T, X extends Exception> T call(Attempt<T, X> attempt) throws X, InterruptedException {
        return call(attempt, FailureListener.NONE);
    }

    /** Only an {@code X} or a runtime exception can come out of an {@code Attempt<T, X>}. */
    // X is the caller's checked exception, named at the call: the unchecked cast to it is the point.
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    private static <X extends Exception> X rethrow(Exception e) {
        if (e instanceof RuntimeException runtime) {
            throw runtime;
        }
        return (X) e;
    }

    /** A walk over this policy's attempts, for loops with a rule of their own. */
    public Attempts attempts() {
        return new Attempts();
    }

    /**
     * The attempts of one call: {@link #next} waits the backoff and starts the next attempt, or answers false
     * when they are used up. Not thread-safe: one caller walks it.
     */
    public final class Attempts {
        private int number;

        private Attempts() {}

        /** Waits before the next attempt and starts it; false (without waiting) once every attempt was made. */
        public boolean next() throws InterruptedException {
            if (number >= maxAttempts) {
                return false;
            }
            number++;
            sleeper.sleep(delayBefore(number));
            return true;
        }

        /** The number of the attempt under way (1-based), or of the last one once they are used up. */
        public int number() {
            return number;
        }

        /**
         * The attempt under way does not count (it failed for a reason the budget is not meant for): the next
         * attempt gets the same number and the same wait.
         */
        public void repeat() {
            if (number > 0) {
                number--;
            }
        }
    }
}
