package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void growsExponentiallyWithFullJitterUpToTheCap() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000), new Random(7));
        assertEquals(Duration.ZERO, backoff.before(1), "the first attempt does not wait");
        long[] ceilings = {0, 0, 100, 200, 400, 800, 1000, 1000};
        for (int attempt = 2; attempt < ceilings.length; attempt++) {
            long max = 0;
            long min = Long.MAX_VALUE;
            for (int i = 0; i < 2000; i++) {
                long wait = backoff.before(attempt).toMillis();
                max = Math.max(max, wait);
                min = Math.min(min, wait);
            }
            assertTrue(max <= ceilings[attempt], "attempt " + attempt + " waited " + max);
            assertTrue(max > ceilings[attempt] * 0.9, "attempt " + attempt + " never came near " + ceilings[attempt]);
            assertTrue(min < ceilings[attempt] * 0.1, "full jitter reaches down to zero");
        }
    }
}
