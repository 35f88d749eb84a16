package io.reme.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PollTest {
    @Test
    void returnsTheFirstValueAnAttemptAnswers() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        Optional<String> value = Poll.first(
                Duration.ofSeconds(10),
                Duration.ofMillis(1),
                () -> attempts.incrementAndGet() == 3 ? Optional.of("there") : Optional.empty());
        assertEquals(Optional.of("there"), value);
        assertEquals(3, attempts.get());
    }

    @Test
    void triesOnceEvenWithNoTimeAndGivesUpAfterTheDeadline() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        assertFalse(Poll.until(Duration.ZERO, Duration.ofMillis(1), () -> attempts.incrementAndGet() < 0));
        assertEquals(1, attempts.get());
        assertTrue(Poll.until(Duration.ZERO, Duration.ofMillis(1), () -> true));
    }

    @Test
    void anAttemptsExceptionEndsTheWaitAtOnce() {
        AtomicInteger attempts = new AtomicInteger();
        assertThrows(
                IOException.class,
                () -> Poll.<String, IOException>first(Duration.ofSeconds(10), Duration.ofMillis(1), () -> {
                    attempts.incrementAndGet();
                    throw new IOException("gone");
                }));
        assertEquals(1, attempts.get());
    }

    @Test
    void anInterruptEndsTheWait() {
        Thread.currentThread().interrupt();
        assertThrows(
                InterruptedException.class,
                () -> Poll.until(Duration.ofSeconds(10), Duration.ofMillis(50), () -> false));
        assertFalse(Thread.interrupted(), "the flag is cleared by the exception");
    }

    @Test
    void refusesAnIntervalOfZero() {
        assertThrows(
                IllegalArgumentException.class, () -> Poll.until(Duration.ofSeconds(1), Duration.ZERO, () -> true));
    }
}
