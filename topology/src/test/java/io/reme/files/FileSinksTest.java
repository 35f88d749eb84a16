package io.reme.files;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FileSinksTest {
    @Test
    void closeReturnsWithinItsBoundEvenIfTheWorkerNeverStops() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch stopping = new CountDownLatch(1);
        FileSinks sinks = new FileSinks(
                null,
                () -> {
                    stopping.countDown();
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                Duration.ofMillis(300));
        long started = System.nanoTime();
        sinks.close();
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assertTrue(stopping.await(1, TimeUnit.SECONDS), "the worker was asked to stop");
        assertTrue(elapsedMs >= 250 && elapsedMs < 3_000, "close took " + elapsedMs + " ms");
        never.countDown();
    }
}
