package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingModel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that fails at one of its last steps (the file sinks, after the broker, the embedding model,
 * Kafka Streams, the API and the LLM workers are up) closes everything it opened before the failure is
 * thrown: the model, the workers' and Streams' threads, the HTTP port and the broker it started itself.
 */
@Tag("integration")
class StartFailureIT {
    @TempDir
    Path dataDir;

    /** A model that only counts how often it was closed. */
    private static final class WatchedModel implements EmbeddingModel {
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public String id() {
            return "watched";
        }

        @Override
        public int dimensions() {
            return 4;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            EmbeddingModel.requireTexts(texts);
            return texts.stream().map(text -> new float[] {1, 0, 0, 0}).toList();
        }

        @Override
        public void close() {
            closed.incrementAndGet();
        }
    }

    @Test
    void aLateFailureClosesWhatTheEarlierStepsOpened() throws Exception {
        // The file sinks keep Connect's offsets under <data-dir>/connect: a file there fails their start,
        // the second-to-last step.
        Files.writeString(dataDir.resolve("connect"), "not a folder");
        int httpPort = freePort();
        AppConfig config = AppConfig.of(Map.of(
                AppConfig.DATA_DIR.name(),
                dataDir.toString(),
                AppConfig.HTTP_PORT.name(),
                Integer.toString(httpPort),
                AppConfig.PARTITIONS.name(),
                "2",
                AppConfig.WORKERS_EMBEDDED.name(),
                "true",
                AppConfig.REQUEST_SECRET.name(),
                TestApps.REQUEST_SECRET));
        WatchedModel model = new WatchedModel();
        Set<Thread> before = Thread.getAllStackTraces().keySet();

        RuntimeException failure = assertThrows(RuntimeException.class, () -> RemeApp.start(config, c -> model));

        assertTrue(String.valueOf(failure.getMessage()).contains("Connect offsets folder"), failure.toString());
        assertEquals(1, model.closed.get(), "the embedding model is closed once");
        List<String> left = startedSince(before);
        assertTrue(left.isEmpty(), "threads still running: " + left);
        assertTrue(canBind(httpPort), "the HTTP port is free again");
        Properties ports = new Properties();
        try (var in = Files.newInputStream(dataDir.resolve("kafka").resolve("ports.properties"))) {
            ports.load(in);
        }
        for (String key : List.of("broker.port", "controller.port")) {
            int port = Integer.parseInt(ports.getProperty(key));
            assertTrue(canBind(port), "the embedded broker's " + key + " " + port + " is free again");
        }
    }

    /**
     * The threads the start runs (the LLM workers and the embedder, the diary reader, Streams, the HTTP
     * server), still alive a few seconds after the failure. The wait is for threads told to stop that take a
     * moment to end; a leaked resource keeps its threads however long one waits.
     */
    private static List<String> startedSince(Set<Thread> before) {
        AtomicReference<List<String>> alive = new AtomicReference<>(List.of());
        try {
            Awaitility.await("the threads it started ended")
                    .atMost(Duration.ofSeconds(15))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        alive.set(aliveSince(before));
                        return alive.get().isEmpty();
                    });
        } catch (ConditionTimeoutException e) {
            // The caller names those still alive.
        }
        return alive.get();
    }

    private static List<String> aliveSince(Set<Thread> before) {
        List<String> alive = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (thread.isAlive()
                    && !before.contains(thread)
                    && (name.startsWith("reme-") || name.contains("StreamThread"))) {
                alive.add(name);
            }
        }
        return alive;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
