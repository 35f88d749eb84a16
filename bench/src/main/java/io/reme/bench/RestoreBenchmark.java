package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.AppProcess;
import io.reme.embedded.EmbeddedKafka;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code bench restore}: how fast an instance's memory index is back. The application runs in a
 * child JVM against a broker in this process; the bench writes {@code --memories} memories with their
 * vectors (the synthetic corpus of {@code bench search}) straight to the {@code memories} topic, times
 * the instance indexing them, then kills it with SIGKILL right after (the worst moment: up to one
 * commit interval of writes not yet in a Lucene commit point), starts it again on the same data
 * directory and times until every partition answers complete; then starts a new instance on an empty
 * data directory (the old one stopped) and times its cold restore. "Complete" is when the last memory
 * written to each partition is found by id (a partition applies its records in order) and a listing
 * reports no partition missing.
 */
public final class RestoreBenchmark {
    private static final String KEY = "restore-key-0123456789abcdef";
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    /** Enough buckets that the tenant's memories spread over every partition. */
    private static final int BUCKETS = 64;

    private final Path dir;
    private final long memories;
    private final int partitions;
    private final String heap;
    private final MemoryCorpus corpus;
    private final PrintStream out;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public RestoreBenchmark(
            Path dir, long memories, int partitions, String heap, MemoryCorpus corpus, PrintStream out) {
        if (memories < 1 || partitions < 1) {
            throw new IllegalArgumentException("--memories and --partitions must be >= 1");
        }
        this.dir = dir;
        this.memories = memories;
        this.partitions = partitions;
        this.heap = heap;
        this.corpus = corpus;
        this.out = out;
    }

    /** Runs the three phases and prints one JSON line; false if an instance never answered complete. */
    public boolean run() throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"))) {
            Path config = writeConfig();
            Map<Integer, String> lastIds;
            double indexS;
            AppProcess first = start(broker, config, "app-a", "indexing");
            try {
                String url = first.awaitReady(Duration.ofMinutes(5));
                long started = System.nanoTime();
                lastIds = produce(broker.bootstrapServers());
                double producedS = seconds(started);
                awaitComplete(url, lastIds, first, Duration.ofMinutes(60));
                indexS = seconds(started);
                out.printf(
                        "indexed %,d memories in %.1f s (%.0f per s; written to the topic in %.1f s)%n",
                        memories, indexS, memories / indexS, producedS);
                first.kill();
            } catch (Exception | Error e) {
                first.kill();
                throw e;
            }
            Recovery crash = recover(broker, config, "app-a", "after-kill", lastIds);
            out.printf(
                    "kill -9 and restart: READY %.1f s after the launch, every partition complete %.1f s after%n",
                    crash.readyS(), crash.completeS());
            Recovery cold = recover(broker, config, "app-b", "cold", lastIds);
            out.printf(
                    "new instance, empty disk: READY %.1f s after the launch, every partition complete %.1f s after"
                            + " (%.0f memories per s; %.1f CPU seconds, %.0f memories per CPU-second)%n",
                    cold.readyS(), cold.completeS(), memories / cold.completeS(), cold.cpuS(), memories / cold.cpuS());
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("memories", memories);
            line.put("partitions", partitions);
            line.put("index_per_s", Math.round(memories / indexS));
            line.put("crash_ready_s", round(crash.readyS()));
            line.put("crash_complete_s", round(crash.completeS()));
            line.put("cold_ready_s", round(cold.readyS()));
            line.put("cold_complete_s", round(cold.completeS()));
            line.put("cold_restore_per_s", Math.round(memories / cold.completeS()));
            line.put("cold_cpu_s", round(cold.cpuS()));
            line.put("cold_restore_per_cpu_s", Math.round(memories / cold.cpuS()));
            // What a memory costs on disk: in the instance (the new one holds the index and nothing else of note),
            // and in the topic it is restored from (compressed as written, before compaction).
            long instanceBytes = DiskUsage.bytes(dir.resolve("app-b"), path -> true);
            long topicBytes = DiskUsage.bytes(
                    dir.resolve("broker"),
                    path -> path.getParent().getFileName().toString().startsWith(TOPICS.memories() + "-"));
            line.put("instance_bytes_per_memory", Math.round((double) instanceBytes / memories));
            line.put("topic_bytes_per_memory", Math.round((double) topicBytes / memories));
            out.printf(
                    "on disk: the new instance %,d MB (%,d bytes per memory), the memories topic %,d MB (%,d bytes per"
                            + " memory)%n",
                    instanceBytes >> 20, instanceBytes / memories, topicBytes >> 20, topicBytes / memories);
            out.println(Json.MAPPER.writeValueAsString(line));
            return true;
        }
    }

    /**
     * Seconds from an instance's launch until it printed READY and until every partition answered complete,
     * and the instance's CPU seconds until complete: on a loaded machine wall times measure the queue for a
     * core, CPU time what the restore costs.
     */
    private record Recovery(double readyS, double completeS, double cpuS) {}

    /** Launches an instance on {@code dataDir}, times it until complete, then stops it (SIGTERM). */
    private Recovery recover(
            EmbeddedKafka broker, Path config, String dataDir, String phase, Map<Integer, String> lastIds)
            throws Exception {
        long launched = System.nanoTime();
        try (AppProcess app = start(broker, config, dataDir, phase)) {
            String url = app.awaitReady(Duration.ofMinutes(30));
            double readyS = seconds(launched);
            awaitComplete(url, lastIds, app, Duration.ofMinutes(60));
            double completeS = seconds(launched);
            double cpuS = ProcessHandle.of(app.pid())
                    .flatMap(p -> p.info().totalCpuDuration())
                    .map(d -> d.toNanos() / 1e9)
                    .orElse(Double.NaN);
            return new Recovery(readyS, completeS, cpuS);
        }
    }

    private AppProcess start(EmbeddedKafka broker, Path config, String dataDir, String phase) throws IOException {
        return AppProcess.start(
                List.of("-Xmx" + heap, "-XX:+UseParallelGC"),
                List.of(
                        "--bootstrap-servers",
                        broker.bootstrapServers(),
                        "--data-dir",
                        dir.resolve(dataDir).toString(),
                        "--http-port",
                        "0",
                        "--config",
                        config.toString()),
                Map.of(),
                dir.resolve(dataDir + "-" + phase + ".log"));
    }

    private Path writeConfig() throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("reme.api.keys", MemoryCorpus.TENANT + ":" + KEY);
        // The records carry their vectors: the instance never embeds, and starts without the model.
        options.put("reme.embedding.provider", "none");
        options.put("reme.topic.partitions", Integer.toString(partitions));
        options.put("reme.search.tenant-buckets", Integer.toString(BUCKETS));
        options.put("reme.workers.embedded", "false");
        return FaultBenchOptions.writeConfig(
                dir.resolve("restore.properties"), "bench restore: written for one run", options);
    }

    /** Writes every memory to its partition; returns the id of the last one each partition got. */
    private Map<Integer, String> produce(String bootstrap) throws Exception {
        Set<Integer> used = new MemoryPartitioning(BUCKETS).partitionsOf(MemoryCorpus.TENANT, partitions);
        out.printf(
                "bench restore: memories=%,d partitions=%d (the tenant's buckets in %d of them) heap=%s dir=%s%n",
                memories, partitions, used.size(), heap, dir);
        return CorpusWriter.write(bootstrap, TOPICS, corpus, memories, partitions, BUCKETS);
    }

    /** Until the last memory of each partition is found and a listing misses no partition. */
    private void awaitComplete(String url, Map<Integer, String> lastIds, AppProcess app, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<Integer, String> waiting = new TreeMap<>(lastIds);
        long reported = System.nanoTime();
        while (true) {
            app.requireAlive();
            waiting.values().removeIf(id -> ApiReads.get(http, url + "/v1/memories/" + encode(id), KEY) != null);
            if (waiting.isEmpty()) {
                JsonNode listing = ApiReads.get(http, url + "/v1/memories?limit=1", KEY);
                if (listing != null && !listing.path("partial").asBoolean(true)) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not complete within " + timeout + "; partitions waiting: "
                        + waiting.keySet() + "\n" + app.tail(20));
            }
            if (System.nanoTime() - reported > Duration.ofSeconds(30).toNanos()) {
                out.printf("  ... partitions still incomplete: %s%n", waiting.keySet());
                reported = System.nanoTime();
            }
            Thread.sleep(200);
        }
    }

    private static String encode(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8);
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double round(double seconds) {
        return Math.round(seconds * 10) / 10.0;
    }
}
