package io.reme.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/** A thread that keeps failing makes the instance not ready; one failure now and then does not. */
class StreamThreadFailuresTest {
    private Instant now = Instant.parse("2026-12-01T10:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    @Test
    void failuresWithinTheWindowMakeItFailingUntilTheyAge() {
        StreamThreadFailures failures = new StreamThreadFailures(3, Duration.ofMinutes(5), clock);
        assertFalse(failures.failing());
        assertEquals(StreamThreadExceptionResponse.REPLACE_THREAD, failures.handle(new IllegalStateException("one")));
        now = now.plusSeconds(10);
        failures.handle(new IllegalStateException("two"));
        assertFalse(failures.failing(), "two failures are under the limit of three");
        now = now.plusSeconds(10);
        failures.handle(new IllegalStateException("three"));
        assertTrue(failures.failing());
        assertEquals(3, failures.recent());
        assertEquals("java.lang.IllegalStateException: three", failures.lastError());

        now = now.plus(Duration.ofMinutes(5)).minusSeconds(15);
        assertEquals(2, failures.recent(), "the first failure has aged out of the window");
        assertFalse(failures.failing());
        now = now.plusSeconds(60);
        assertEquals(0, failures.recent());
        assertNull(failures.lastError());
    }

    @Test
    void failuresSpreadOverTimeNeverReachTheLimit() {
        StreamThreadFailures failures = new StreamThreadFailures(3, Duration.ofMinutes(5), clock);
        for (int i = 0; i < 10; i++) {
            failures.handle(new IllegalStateException("now and then"));
            assertFalse(failures.failing());
            now = now.plus(Duration.ofMinutes(3));
        }
    }
}
