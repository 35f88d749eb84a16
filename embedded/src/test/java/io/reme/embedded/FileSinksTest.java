package io.reme.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.local.FileSinkSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FileSinksTest {
    @Test
    void theConsumersKeepTheirPlaceAcrossARestartAndAreMissedWithinTheSessionTimeout() {
        Map<String, String> stable = FileSinks.workerProps(
                Map.of("bootstrap.servers", "b:9092"),
                Path.of("data"),
                new FileSinkSettings.Membership("reme-0123", Duration.ofSeconds(10)));
        assertEquals("reme-0123-files", stable.get("consumer.group.instance.id"));
        assertEquals("10000", stable.get("consumer.session.timeout.ms"));
        assertEquals("3333", stable.get("consumer.heartbeat.interval.ms"));
        assertEquals("b:9092", stable.get("consumer.bootstrap.servers"));
        assertFalse(stable.containsKey("producer.group.instance.id"));

        Map<String, String> dynamic = FileSinks.workerProps(
                Map.of("bootstrap.servers", "b:9092"),
                Path.of("data"),
                new FileSinkSettings.Membership("", Duration.ofSeconds(45)));
        assertFalse(dynamic.containsKey("consumer.group.instance.id"));
        assertEquals("45000", dynamic.get("consumer.session.timeout.ms"));
        assertThrows(IllegalArgumentException.class, () -> new FileSinkSettings.Membership("x", Duration.ZERO));
    }

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
