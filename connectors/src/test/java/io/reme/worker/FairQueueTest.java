package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FairQueueTest {
    @Test
    void aFloodingTenantDoesNotStarveOthers() throws InterruptedException {
        FairQueue<String> queue = new FairQueue<>();
        for (int i = 0; i < 100; i++) {
            queue.put("flood", "f" + i);
        }
        queue.put("quiet", "q0");
        queue.put("other", "o0");
        queue.put("quiet", "q1");
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            order.add(queue.poll(1, TimeUnit.SECONDS));
        }
        assertEquals(List.of("f0", "q0", "o0", "f1", "q1", "f2"), order);
        assertEquals(97, queue.size());
    }

    @Test
    void keepsOrderWithinATenantAndTimesOutWhenEmpty() throws InterruptedException {
        FairQueue<String> queue = new FairQueue<>();
        queue.put("a", "1");
        queue.put("a", "2");
        assertEquals("1", queue.poll(1, TimeUnit.SECONDS));
        assertEquals("2", queue.poll(1, TimeUnit.SECONDS));
        assertNull(queue.poll(20, TimeUnit.MILLISECONDS));
    }

    @Test
    void aCappedTenantWaitsForItsOwnItemsToFinishWhileOthersAreServed() throws InterruptedException {
        FairQueue<String> queue = new FairQueue<>(tenant -> tenant.equals("flood") ? 2 : Integer.MAX_VALUE);
        for (int i = 0; i < 10; i++) {
            queue.put("flood", "f" + i);
        }
        queue.put("quiet", "q0");
        queue.put("quiet", "q1");
        queue.put("quiet", "q2");
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            order.add(queue.poll(1, TimeUnit.SECONDS));
        }
        // Two of flood's in hand: its lane is skipped, quiet's are served.
        assertEquals(List.of("f0", "q0", "f1", "q1", "q2"), order);
        assertNull(queue.poll(20, TimeUnit.MILLISECONDS), "flood is at its cap and nobody else waits");
        queue.done("flood");
        assertEquals("f2", queue.poll(1, TimeUnit.SECONDS));
        assertNull(queue.poll(20, TimeUnit.MILLISECONDS));
        queue.done("quiet");
        assertNull(queue.poll(20, TimeUnit.MILLISECONDS), "another tenant's finish frees nothing of flood's");
        queue.done("flood");
        assertEquals("f3", queue.poll(1, TimeUnit.SECONDS));
        assertEquals(6, queue.size());
    }
}
