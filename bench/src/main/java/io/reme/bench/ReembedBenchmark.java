package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.AppProcess;
import io.reme.embedded.EmbeddedKafka;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code bench reembed}: a change of embedding model on a running deployment. The application runs in a child JVM
 * against a broker in this process, configured with the old model (MiniLM-q); the bench writes {@code --memories}
 * memories of {@code bench search}'s corpus with that model's vectors straight to {@code memories} and waits until
 * they are indexed and every index searches with the old model. It measures searches, then restarts the instance
 * configured with bge-small-en and times the re-embedding until every partition switched, searching all along
 * (one search every {@code --pace-ms}), and measures searches again after. Wall times beside the child's CPU time
 * (from {@code /proc}), and the load average, since the machine is shared.
 */
public final class ReembedBenchmark {
    private static final String KEY = "reembed-key-0123456789abcdef";
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int BUCKETS = 64;
    private static final long CLOCK_TICKS = 100;

    private final Path dir;
    private final long memories;
    private final int partitions;
    private final String heap;
    private final MemoryCorpus corpus;
    private final Duration pace;
    private final int queries;
    private final PrintStream out;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public ReembedBenchmark(
            Path dir,
            long memories,
            int partitions,
            String heap,
            MemoryCorpus corpus,
            Duration pace,
            int queries,
            PrintStream out) {
        if (memories < 1 || partitions < 1 || queries < 1) {
            throw new IllegalArgumentException("--memories, --partitions and --queries must be >= 1");
        }
        this.dir = dir;
        this.memories = memories;
        this.partitions = partitions;
        this.heap = heap;
        this.corpus = corpus;
        this.pace = pace;
        this.queries = queries;
        this.out = out;
    }

    /** Latencies in ms, and searches that failed or came back partial. */
    private record Searches(double[] ms, int failed) {
        double percentile(double p) {
            if (ms.length == 0) {
                return Double.NaN;
            }
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
        }
    }

    public void run() throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"))) {
            out.printf(
                    "bench reembed: memories=%,d partitions=%d heap=%s load=%s dir=%s%n",
                    memories, partitions, heap, load(), dir);
            Map<Integer, String> lastIds;
            Searches before;
            try (AppProcess old = start(broker, "all-minilm-l6-v2-q", "old")) {
                String url = old.awaitReady(Duration.ofMinutes(5));
                long started = System.nanoTime();
                lastIds = produce(broker.bootstrapServers());
                awaitIndexed(url, lastIds, old);
                awaitSwitched(url, old, Duration.ofMinutes(30), null);
                out.printf("indexed with the old model in %.1f s; load=%s%n", seconds(started), load());
                before = searches(url, queries);
                out.printf(
                        "searches on the old model: p50 %.1f ms, p99 %.1f ms (%d, %d failed)%n",
                        before.percentile(0.5), before.percentile(0.99), before.ms().length, before.failed());
            }
            long launched = System.nanoTime();
            try (AppProcess next = start(broker, "bge-small-en-v1.5-q", "new")) {
                String url = next.awaitReady(Duration.ofMinutes(5));
                double readyS = seconds(launched);
                long cpu0 = cpuTicks(next.pid());
                long started = System.nanoTime();
                List<Double> during = new ArrayList<>();
                int[] failed = {0};
                String loadDuring = load();
                awaitSwitched(url, next, Duration.ofHours(3), () -> {
                    Searches one = searches(url, 1);
                    for (double ms : one.ms()) {
                        during.add(ms);
                    }
                    failed[0] += one.failed();
                });
                double reembedS = seconds(started);
                double cpuS = (cpuTicks(next.pid()) - cpu0) / (double) CLOCK_TICKS;
                String loadAfter = load();
                Searches duringSearches = new Searches(
                        during.stream().mapToDouble(Double::doubleValue).toArray(), failed[0]);
                JsonNode reembedding = ApiReads.get(http, url + "/v1/pipeline", KEY)
                        .path("metrics")
                        .path("reembedding");
                Searches after = searches(url, queries);
                out.printf(
                        "re-embedded in %.1f s after READY (READY %.1f s after the launch): %.0f memories per s, child"
                                + " CPU %.1f s (%.1f ms per memory); load %s during, %s after%n",
                        reembedS, readyS, memories / reembedS, cpuS, 1000 * cpuS / memories, loadDuring, loadAfter);
                out.printf(
                        "searches during: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d, %d failed or partial)%n",
                        duringSearches.percentile(0.5),
                        duringSearches.percentile(0.99),
                        duringSearches.percentile(1),
                        duringSearches.ms().length,
                        duringSearches.failed());
                out.printf(
                        "searches after, on the new model: p50 %.1f ms, p99 %.1f ms (%d, %d failed)%n",
                        after.percentile(0.5), after.percentile(0.99), after.ms().length, after.failed());
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("memories", memories);
                line.put("partitions", partitions);
                line.put("reembedded", reembedding.path("reembedded").asLong());
                line.put("reembed_s", round(reembedS));
                line.put("reembed_per_s", Math.round(memories / reembedS));
                line.put("reembed_cpu_s", round(cpuS));
                line.put("search_before_p50_ms", round(before.percentile(0.5)));
                line.put("search_before_p99_ms", round(before.percentile(0.99)));
                line.put("search_during_p50_ms", round(duringSearches.percentile(0.5)));
                line.put("search_during_p99_ms", round(duringSearches.percentile(0.99)));
                line.put("search_during_count", duringSearches.ms().length);
                line.put("search_during_failed", duringSearches.failed());
                line.put("search_after_p50_ms", round(after.percentile(0.5)));
                line.put("search_after_p99_ms", round(after.percentile(0.99)));
                out.println(Json.MAPPER.writeValueAsString(line));
            }
        }
    }

    /** {@code n} searches of the corpus's questions, one after the other. */
    private Searches searches(String url, int n) throws InterruptedException {
        double[] ms = new double[n];
        int failed = 0;
        int done = 0;
        for (int i = 0; i < n; i++) {
            String body;
            try {
                body = Json.MAPPER.writeValueAsString(
                        Map.of("query", corpus.question(System.nanoTime() % 100_000), "k", 10));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/search"))
                    .header("Authorization", "Bearer " + KEY)
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            long start = System.nanoTime();
            try {
                HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
                if (response.statusCode() != 200
                        || Json.MAPPER.readTree(response.body()).path("partial").asBoolean()) {
                    failed++;
                }
            } catch (IOException e) {
                failed++;
            }
            ms[done++] = (System.nanoTime() - start) / 1e6;
        }
        return new Searches(Arrays.copyOf(ms, done), failed);
    }

    /** Until every partition's index was told to switch to the configured model, running {@code meanwhile}. */
    private void awaitSwitched(String url, AppProcess app, Duration timeout, Meanwhile meanwhile) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long reported = System.nanoTime();
        while (true) {
            app.requireAlive();
            JsonNode pipeline = ApiReads.get(http, url + "/v1/pipeline", KEY);
            JsonNode r = pipeline == null ? null : pipeline.path("metrics").path("reembedding");
            if (r != null
                    && r.path("partitions").asInt() == partitions
                    && r.path("switchedPartitions").asInt() == partitions) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not switched within " + timeout + "\n" + app.tail(20));
            }
            if (System.nanoTime() - reported > Duration.ofSeconds(30).toNanos() && r != null) {
                out.printf(
                        "  ... re-embedding %.1f %%, %,d offsets left, %d of %d partitions switched, %,d memories"
                                + " re-embedded; load=%s%n",
                        100 * r.path("progress").asDouble(),
                        r.path("remaining").asLong(),
                        r.path("switchedPartitions").asInt(),
                        r.path("partitions").asInt(),
                        r.path("reembedded").asLong(),
                        load());
                reported = System.nanoTime();
            }
            if (meanwhile != null) {
                meanwhile.run();
            }
            Thread.sleep(pace.toMillis());
        }
    }

    /** What to do between two looks at the progress. */
    private interface Meanwhile {
        void run() throws Exception;
    }

    private void awaitIndexed(String url, Map<Integer, String> lastIds, AppProcess app) throws InterruptedException {
        Map<Integer, String> waiting = new TreeMap<>(lastIds);
        long deadline = System.nanoTime() + Duration.ofHours(1).toNanos();
        while (!waiting.isEmpty()) {
            app.requireAlive();
            waiting.values()
                    .removeIf(id -> ApiReads.get(
                                    http, url + "/v1/memories/" + URLEncoder.encode(id, StandardCharsets.UTF_8), KEY)
                            != null);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not indexed within an hour: " + waiting.keySet());
            }
            Thread.sleep(200);
        }
    }

    private AppProcess start(EmbeddedKafka broker, String model, String phase) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("reme.api.keys", MemoryCorpus.TENANT + ":" + KEY);
        options.put("reme.embedding.provider", "local");
        options.put("reme.embedding.local-model", model);
        // The corpus is English: the change measured is of the main model.
        options.put("reme.embedding.chinese-model", "none");
        options.put("reme.topic.partitions", Integer.toString(partitions));
        options.put("reme.search.tenant-buckets", Integer.toString(BUCKETS));
        options.put("reme.workers.embedded", "true");
        Path config = FaultBenchOptions.writeConfig(
                dir.resolve("reembed-" + phase + ".properties"), "bench reembed: written for one run", options);
        return AppProcess.start(
                List.of("-Xmx" + heap, "-XX:+UseParallelGC"),
                List.of(
                        "--bootstrap-servers",
                        broker.bootstrapServers(),
                        "--data-dir",
                        dir.resolve("app").toString(),
                        "--http-port",
                        "0",
                        "--config",
                        config.toString()),
                Map.of(),
                dir.resolve("app-" + phase + ".log"));
    }

    /** Writes every memory to its partition; returns the id of the last one each partition got. */
    private Map<Integer, String> produce(String bootstrap) throws Exception {
        Set<Integer> used = new MemoryPartitioning(BUCKETS).partitionsOf(MemoryCorpus.TENANT, partitions);
        out.printf("the tenant's buckets in %d of %d partitions%n", used.size(), partitions);
        return CorpusWriter.write(bootstrap, TOPICS, corpus, memories, partitions, BUCKETS);
    }

    /** User plus system CPU of a process, in clock ticks, from {@code /proc/<pid>/stat}. */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static String load() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + "/" + parts[1] + "/" + parts[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
