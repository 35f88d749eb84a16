package io.reme.api.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** A copy serves only when its lag is known, recent and small; asking never holds up a read. */
class StoreLagsTest {
    @Test
    void aCopyIsFreshOnlyWithARecentSmallKnownLag() {
        AtomicLong now = new AtomicLong();
        AtomicInteger asked = new AtomicInteger();
        Map<String, Map<Integer, Long>> lags = Map.of("s", Map.of(0, 10L, 1, StoreLags.MAX_LAG + 1));
        StoreLags known = new StoreLags(
                () -> {
                    asked.incrementAndGet();
                    return lags;
                },
                now::get);

        assertFalse(known.fresh("s", 0), "nothing known yet: the read is refused while it is asked");
        Awaitility.await().until(() -> asked.get() == 1);
        Awaitility.await().until(() -> known.fresh("s", 0));
        assertFalse(known.fresh("s", 1), "too far behind");
        assertFalse(known.fresh("s", 2), "a partition not here");
        assertFalse(known.fresh("other", 0), "a store not here");

        now.addAndGet(StoreLags.EXPIRY.toNanos());
        assertFalse(known.fresh("s", 0), "an answer that old is not trusted");
        Awaitility.await().until(() -> asked.get() == 2);
        Awaitility.await().until(() -> known.fresh("s", 0));
    }

    @Test
    void aFailedAskLeavesTheCopyUnknown() {
        AtomicInteger asked = new AtomicInteger();
        StoreLags failing = new StoreLags(
                () -> {
                    asked.incrementAndGet();
                    throw new IllegalStateException("streams is not running");
                },
                System::nanoTime);
        assertFalse(failing.fresh("s", 0));
        Awaitility.await().until(() -> asked.get() == 1);
        assertFalse(failing.fresh("s", 0));
        assertTrue(asked.get() >= 1);
    }
}
