package io.reme.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ShutdownHookTest {
    @Test
    void aCloseThatHangsIsCutShortByAHaltAfterTheGrace() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch halted = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = ShutdownHook.create(
                () -> {
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                stopped,
                Duration.ofMillis(200),
                halted::countDown);
        hook.start();
        assertTrue(halted.await(5, TimeUnit.SECONDS), "the watchdog halts");
        assertEquals(1, stopped.getCount(), "close has not returned");
        never.countDown();
        hook.join(5_000);
    }

    @Test
    void theWatchdogOutlivesACloseThatReturnedForAnotherHookThatHangs() throws InterruptedException {
        // The JVM waits for every shutdown hook: one of a library's that hangs after ours has returned
        // (Connect's, parked in its REST server's stop) must be cut short too.
        CountDownLatch halted = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = ShutdownHook.create(() -> {}, stopped, Duration.ofMillis(200), halted::countDown);
        hook.start();
        hook.join(5_000);
        assertEquals(0, stopped.getCount(), "the command's main thread is released once close returns");
        assertTrue(halted.await(5, TimeUnit.SECONDS));
    }
}
