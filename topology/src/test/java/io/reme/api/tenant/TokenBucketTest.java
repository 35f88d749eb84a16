package io.reme.api.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aFullBucketGivesOneSecondsWorthThenRefillsAtTheRate() {
        TokenBucket bucket = new TokenBucket(10, 0);
        for (int i = 0; i < 10; i++) {
            assertEquals(0, bucket.take(1, 0), "take " + i);
        }
        long wait = bucket.take(1, 0);
        assertTrue(wait > 0 && wait <= SECOND / 10, "one token comes back in a tenth of a second: " + wait);
        assertEquals(0, bucket.take(1, SECOND / 10));
        // An idle spell fills it to one second's worth, no more.
        int taken = 0;
        while (bucket.take(1, 100 * SECOND) == 0) {
            taken++;
        }
        assertEquals(10, taken);
    }

    @Test
    void aBatchLargerThanTheBucketRunsItIntoDebtThatLaterTakesWaitOut() {
        TokenBucket bucket = new TokenBucket(5, 0);
        assertEquals(0, bucket.take(20, 0), "a full bucket takes any batch once");
        long wait = bucket.take(1, 0);
        // 15 tokens of debt plus the one asked for, at 5 a second.
        assertEquals(16 * SECOND / 5, wait, SECOND / 100.0);
        assertTrue(bucket.take(1, wait - SECOND / 10) > 0);
        assertEquals(0, bucket.take(1, wait));
    }

    @Test
    void aRateBelowOneStillHoldsOneToken() {
        TokenBucket bucket = new TokenBucket(0.5, 0);
        assertEquals(0, bucket.take(1, 0));
        assertEquals(2 * SECOND, bucket.take(1, 0), SECOND / 100.0);
    }
}
