package io.reme.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    /** A failure that says itself whether another attempt can help. */
    private static final class Flaky extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean retryable;

        Flaky(String message, boolean retryable) {
            super(message);
            this.retryable = retryable;
        }
    }

    private final List<Duration> waits = new ArrayList<>();

    private RetryPolicy policy(int maxAttempts) {
        return RetryPolicy.exponential(
                        maxAttempts,
                        Duration.ofMillis(100),
                        Duration.ofMillis(1000),
                        e -> e instanceof Flaky flaky && flaky.retryable)
                .withSleeper(waits::add)
                .withRandom(new Random(7));
    }

    @Test
    void growsExponentiallyWithFullJitterUpToTheCap() {
        RetryPolicy policy = policy(10);
        assertEquals(Duration.ZERO, policy.delayBefore(1), "the first attempt does not wait");
        long[] ceilings = {0, 0, 100, 200, 400, 800, 1000, 1000};
        for (int attempt = 2; attempt < ceilings.length; attempt++) {
            long max = 0;
            long min = Long.MAX_VALUE;
            for (int i = 0; i < 2000; i++) {
                long wait = policy.delayBefore(attempt).toMillis();
                max = Math.max(max, wait);
                min = Math.min(min, wait);
            }
            assertTrue(max <= ceilings[attempt], "attempt " + attempt + " waited " + max);
            assertTrue(max > ceilings[attempt] * 0.9, "attempt " + attempt + " never came near " + ceilings[attempt]);
            assertTrue(min < ceilings[attempt] * 0.1, "full jitter reaches down to zero");
        }
    }

    @Test
    void lessJitterKeepsTheWaitNearTheCeiling() {
        RetryPolicy none = policy(5).withJitter(0);
        assertEquals(Duration.ofMillis(400), none.delayBefore(4), "no jitter: the ceiling itself");
        RetryPolicy quarter = policy(5).withJitter(0.25);
        for (int i = 0; i < 500; i++) {
            long wait = quarter.delayBefore(4).toMillis();
            assertTrue(wait >= 300 && wait <= 400, "waited " + wait);
        }
    }

    @Test
    void aZeroBackoffNeverWaits() {
        RetryPolicy policy = RetryPolicy.exponential(3, Duration.ZERO, Duration.ZERO, e -> true);
        assertEquals(Duration.ZERO, policy.delayBefore(3));
    }

    @Test
    void retriesRetryableFailuresWithTheBackoffBetweenAttempts() throws Exception {
        List<String> heard = new ArrayList<>();
        String answer = policy(4)
                .call(
                        attempt -> {
                            if (attempt < 3) {
                                throw new Flaky("busy " + attempt, true);
                            }
                            return "ok at " + attempt;
                        },
                        (attempt, failure) -> heard.add(attempt + ":" + failure.getMessage()));
        assertEquals("ok at 3", answer);
        assertEquals(List.of("1:busy 1", "2:busy 2"), heard);
        assertEquals(3, waits.size(), "one wait before each attempt");
        assertEquals(Duration.ZERO, waits.get(0));
        assertTrue(waits.get(1).toMillis() <= 100 && waits.get(2).toMillis() <= 200, waits.toString());
    }

    @Test
    void aFailureThatIsNotRetryableEndsTheCallAtOnce() {
        RetryPolicy policy = policy(4);
        Flaky refused = new Flaky("bad request", false);
        List<Integer> attempts = new ArrayList<>();
        Flaky thrown = assertThrows(
                Flaky.class,
                () -> policy.call(attempt -> {
                    attempts.add(attempt);
                    throw refused;
                }));
        assertSame(refused, thrown);
        assertEquals(List.of(1), attempts);
        assertFalse(policy.retries(thrown));
    }

    @Test
    void whenTheAttemptsRunOutTheLastFailureComesOut() {
        RetryPolicy policy = policy(3);
        List<Integer> attempts = new ArrayList<>();
        Flaky thrown = assertThrows(
                Flaky.class,
                () -> policy.call(attempt -> {
                    attempts.add(attempt);
                    throw new Flaky("busy " + attempt, true);
                }));
        assertEquals("busy 3", thrown.getMessage());
        assertEquals(List.of(1, 2, 3), attempts);
        assertTrue(policy.retries(thrown), "a retryable failure out of call means the attempts ran out");
    }

    @Test
    void runtimeExceptionsTheRuleDoesNotAcceptPassThrough() {
        IllegalStateException bug = new IllegalStateException("bug");
        List<Integer> attempts = new ArrayList<>();
        assertSame(
                bug,
                assertThrows(
                        IllegalStateException.class,
                        () -> policy(3).call(attempt -> {
                            attempts.add(attempt);
                            throw bug;
                        })));
        assertEquals(List.of(1), attempts);
    }

    @Test
    void checkedFailuresOfOtherKindsAreRetriedWhenTheRuleSaysSo() throws Exception {
        RetryPolicy anything = RetryPolicy.exponential(2, Duration.ZERO, Duration.ZERO, e -> true);
        int[] calls = {0};
        assertEquals("read", anything.<String, IOException>call(attempt -> {
            if (calls[0]++ == 0) {
                throw new IOException("reset");
            }
            return "read";
        }));
    }

    @Test
    void anInterruptEndsTheCall() {
        RetryPolicy policy = policy(3);
        List<Integer> attempts = new ArrayList<>();
        assertThrows(
                InterruptedException.class,
                () -> policy.call(attempt -> {
                    attempts.add(attempt);
                    throw new InterruptedException();
                }));
        assertEquals(List.of(1), attempts);
    }

    @Test
    void anAttemptThatDoesNotCountIsMadeAgainWithTheSameNumberAndWait() throws Exception {
        RetryPolicy policy = policy(2).withJitter(0);
        RetryPolicy.Attempts attempts = policy.attempts();
        List<Integer> numbers = new ArrayList<>();
        int repeats = 0;
        while (attempts.next()) {
            numbers.add(attempts.number());
            if (attempts.number() == 2 && repeats++ < 2) {
                attempts.repeat();
            }
        }
        assertEquals(List.of(1, 2, 2, 2), numbers);
        assertEquals(2, attempts.number(), "the last attempt's number once they are used up");
        assertEquals(
                List.of(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(100)), waits);
    }

    @Test
    void refusesSettingsThatMakeNoSense() {
        assertThrows(
                IllegalArgumentException.class,
                () -> RetryPolicy.exponential(0, Duration.ZERO, Duration.ZERO, e -> true));
        assertThrows(
                IllegalArgumentException.class,
                () -> RetryPolicy.exponential(1, Duration.ofSeconds(2), Duration.ofSeconds(1), e -> true));
        assertThrows(IllegalArgumentException.class, () -> policy(1).withJitter(1.5));
    }
}
