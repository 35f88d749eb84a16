package io.reme.bench;

import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.Vectors;
import io.reme.search.Hit;
import io.reme.search.MemoryIndex;
import io.reme.search.MemoryRecord;
import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench search}: index throughput and hybrid top-10 latency of one tenant's {@link MemoryIndex}
 * (the index the memory index store serves {@code POST /v1/search} from) at growing sizes.
 *
 * <p>Memories come from {@link MemoryCorpus}; sizes are cumulative (the index grows from one size
 * to the next and is measured at each). A query is what {@code /v1/search} does: the question is
 * embedded by the real model (timed on its own), then {@link MemoryIndex#search} runs BM25 and HNSW
 * kNN under the tenant filter, fuses (RRF) and loads the top 10. A second pass adds a user filter
 * (one user of 200). HNSW quality is checked against an exact scan of the corpus vectors.
 */
public final class SearchBenchmark {
    /**
     * What to measure. {@code commitEvery}: memories between two refresh-and-commits while indexing, as
     * the store does at each Streams commit (0: once at the end), which decides how many segments the
     * merge policy leaves and so what every kNN search walks.
     */
    public record Settings(
            List<Integer> sizes, int queries, int warmUp, int indexThreads, int exactChecks, int commitEvery) {
        public Settings {
            sizes = List.copyOf(sizes);
            if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s < 1)) {
                throw new IllegalArgumentException("sizes must be >= 1");
            }
            for (int i = 1; i < sizes.size(); i++) {
                if (sizes.get(i) <= sizes.get(i - 1)) {
                    throw new IllegalArgumentException("sizes must grow: " + sizes);
                }
            }
            if (queries < 1 || warmUp < 0 || indexThreads < 1 || exactChecks < 0 || commitEvery < 0) {
                throw new IllegalArgumentException(
                        "queries and index threads must be >= 1, warm-up, exact " + "checks and commit-every >= 0");
            }
        }
    }

    /** The figures of one size. */
    public record Result(
            int size,
            int segments,
            double indexPerSecond,
            double[] embedMillis,
            double[] embedCpuMillis,
            double[] searchMillis,
            double[] searchCpuMillis,
            double[] filteredMillis,
            double[] filteredCpuMillis,
            double[] textMillis,
            double[] vectorMillis,
            double[] filteredTextMillis,
            double[] filteredVectorMillis,
            double knnRecall,
            double filteredKnnRecall,
            long gcPauses,
            long gcMillis) {}

    /** A search runs on the calling thread: its CPU time is what the query costs, whatever the load. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Path dir;
    private final EmbeddingModel model;
    private final Settings settings;
    private final PrintStream out;

    public SearchBenchmark(Path dir, EmbeddingModel model, Settings settings, PrintStream out) {
        this.dir = dir;
        this.model = model;
        this.settings = settings;
        this.out = out;
    }

    public List<Result> run() throws IOException, EmbeddingException, InterruptedException {
        long t0 = System.nanoTime();
        MemoryCorpus corpus = MemoryCorpus.embeddedWith(model);
        double[] fidelity = corpus.fidelity(model, 300);
        out.printf(
                Locale.ROOT,
                "corpus: %d phrases embedded by %s in %.1f s; synthetic vs model vector of the same "
                        + "text: cosine mean %.3f, lowest %.3f (300 memories)%n",
                MemoryCorpus.phraseCount(),
                model.id(),
                (System.nanoTime() - t0) / 1e9,
                fidelity[0],
                fidelity[1]);
        List<String> questions = new ArrayList<>();
        for (int i = 0; i < settings.warmUp() + settings.queries(); i++) {
            questions.add(corpus.question(i));
        }
        List<Result> results = new ArrayList<>();
        try (MemoryIndex index = MemoryIndex.open(dir.resolve("index"))) {
            // Memory n is the same in every run and the index is committed after each size, so an
            // index left by an earlier run in the same directory holds memories 0..count-1: growing
            // it on, or measuring it again, saves the hour that 10^6 takes to index here.
            int indexed = index.count();
            for (int size : settings.sizes()) {
                if (size < indexed) {
                    out.printf(
                            Locale.ROOT,
                            "size %,d skipped: the index in %s already holds %,d memories%n",
                            size,
                            dir,
                            indexed);
                    continue;
                }
                double rate = Double.NaN;
                if (size == indexed) {
                    out.printf(Locale.ROOT, "reusing the index of %,d memories in %s%n", size, dir);
                } else {
                    out.printf(
                            Locale.ROOT,
                            "indexing memories %,d..%,d with %d thread(s); load average %.2f%n",
                            indexed,
                            size,
                            settings.indexThreads(),
                            loadAverage());
                    long cpu0 = processCpuNanos();
                    rate = grow(index, corpus, indexed, size);
                    double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
                    out.printf(
                            Locale.ROOT,
                            "  %,.0f memories/s (upsert, refresh and commit), %,.0f per CPU-second; "
                                    + "%,d searchable; load average %.2f%n",
                            rate,
                            (size - indexed) / cpuSeconds,
                            index.count(),
                            loadAverage());
                }
                indexed = size;
                Result result = measure(index, corpus, size, rate, questions);
                print(result);
                results.add(result);
            }
        }
        return results;
    }

    /** Upserts memories {@code from..to-1} on the configured threads, then refreshes and commits; memories/s. */
    private double grow(MemoryIndex index, MemoryCorpus corpus, int from, int to)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        AtomicLong next = new AtomicLong(from);
        AtomicLong done = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(settings.indexThreads());
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < settings.indexThreads(); t++) {
                workers.add(pool.submit(() -> {
                    for (long n = next.getAndIncrement(); n < to; n = next.getAndIncrement()) {
                        index.upsert(corpus.memory(n));
                        long count = done.incrementAndGet();
                        if (settings.commitEvery() > 0 && count % settings.commitEvery() == 0) {
                            index.refresh();
                            index.commit();
                        }
                        if (count % 100_000 == 0) {
                            out.printf(
                                    Locale.ROOT,
                                    "  %,d upserted, %,.0f/s%n",
                                    from + count,
                                    count / ((System.nanoTime() - start) / 1e9));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } catch (ExecutionException e) {
            throw new IOException("indexing failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdown();
        }
        index.refresh();
        index.commit();
        double rate = (to - from) / ((System.nanoTime() - start) / 1e9);
        // Measure the index as it settles, not while merges compete with the queries for the cores.
        long mergeStart = System.nanoTime();
        while (index.merging()) {
            Thread.sleep(100);
        }
        index.refresh();
        // Committed again: a later run reusing the directory opens the merged index, not the one of the last commit.
        index.commit();
        out.printf(
                Locale.ROOT, "  merges settled %.1f s after the last commit%n", (System.nanoTime() - mergeStart) / 1e9);
        return rate;
    }

    private Result measure(MemoryIndex index, MemoryCorpus corpus, int size, double rate, List<String> questions)
            throws IOException, EmbeddingException {
        List<float[]> vectors = new ArrayList<>();
        long[] embedNanos = new long[settings.queries()];
        long[] embedCpu = new long[settings.queries()];
        for (int i = 0; i < questions.size(); i++) {
            long c0 = processCpuNanos();
            long e0 = System.nanoTime();
            vectors.add(model.embedQuery(questions.get(i)));
            if (i >= settings.warmUp()) {
                embedNanos[i - settings.warmUp()] = System.nanoTime() - e0;
                // ONNX Runtime computes on its own threads: the process's CPU time, not this thread's.
                embedCpu[i - settings.warmUp()] = processCpuNanos() - c0;
            }
        }
        long[] search = new long[settings.queries()];
        long[] searchCpu = new long[settings.queries()];
        long[] filteredCpu = new long[settings.queries()];
        long[] text = new long[settings.queries()];
        long[] vector = new long[settings.queries()];
        long[] filtered = new long[settings.queries()];
        long[] filteredText = new long[settings.queries()];
        long[] filteredVector = new long[settings.queries()];
        long[] gc0 = gcCountAndMillis();
        for (int pass = 0; pass < 2; pass++) {
            boolean userFilter = pass == 1;
            for (int i = 0; i < questions.size(); i++) {
                // The same query /v1/search builds: tenant, text, vector, k = 10, default fusion.
                SearchQuery q = SearchQuery.builder(MemoryCorpus.TENANT)
                        .text(questions.get(i))
                        .vector(vectors.get(i), model.id())
                        .k(10)
                        .users(userFilter ? Set.of("u" + (i % 200)) : null)
                        .build();
                long c0 = THREADS.getCurrentThreadCpuTime();
                long s0 = System.nanoTime();
                SearchResult result = index.search(q);
                long nanos = System.nanoTime() - s0;
                long cpu = THREADS.getCurrentThreadCpuTime() - c0;
                if (result.hits().isEmpty()) {
                    throw new IllegalStateException("no hit for '" + questions.get(i) + "'");
                }
                int at = i - settings.warmUp();
                if (at < 0) {
                    continue;
                }
                if (userFilter) {
                    filtered[at] = nanos;
                    filteredCpu[at] = cpu;
                    filteredText[at] = result.timings().textMicros() * 1000;
                    filteredVector[at] = result.timings().vectorMicros() * 1000;
                } else {
                    search[at] = nanos;
                    searchCpu[at] = cpu;
                    text[at] = result.timings().textMicros() * 1000;
                    vector[at] = result.timings().vectorMicros() * 1000;
                }
            }
        }
        long[] gc1 = gcCountAndMillis();
        List<float[]> checked = vectors.subList(
                settings.warmUp(), settings.warmUp() + Math.min(settings.exactChecks(), settings.queries()));
        double recall = settings.exactChecks() == 0 ? Double.NaN : knnRecall(index, corpus, size, checked, false);
        double filteredRecall =
                settings.exactChecks() == 0 ? Double.NaN : knnRecall(index, corpus, size, checked, true);
        return new Result(
                size,
                index.segmentCount(),
                rate,
                percentiles(embedNanos),
                percentiles(embedCpu),
                percentiles(search),
                percentiles(searchCpu),
                percentiles(filtered),
                percentiles(filteredCpu),
                percentiles(text),
                percentiles(vector),
                percentiles(filteredText),
                percentiles(filteredVector),
                recall,
                filteredRecall,
                gc1[0] - gc0[0],
                gc1[1] - gc0[1]);
    }

    /**
     * Mean share of the exact 10 nearest memories (by a full scan of the corpus vectors) that the index's
     * vector search returns in its top 10: of the whole tenant, or ({@code oneUser}) of query {@code q}'s
     * user {@code u(q % 200)} only, through the search's user filter.
     */
    private static double knnRecall(
            MemoryIndex index, MemoryCorpus corpus, int size, List<float[]> queries, boolean oneUser)
            throws IOException {
        List<PriorityQueue<double[]>> best = new ArrayList<>();
        for (int q = 0; q < queries.size(); q++) {
            best.add(new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0])));
        }
        for (int n = 0; n < size; n++) {
            MemoryRecord memory = corpus.memory(n);
            float[] v = memory.vector();
            for (int q = 0; q < queries.size(); q++) {
                if (oneUser && !userOf(q).equals(memory.user())) {
                    continue;
                }
                double score = Vectors.dot(queries.get(q), v);
                PriorityQueue<double[]> heap = best.get(q);
                if (heap.size() < 10) {
                    heap.add(new double[] {score, n});
                } else if (score > heap.peek()[0]) {
                    heap.poll();
                    heap.add(new double[] {score, n});
                }
            }
        }
        double sum = 0;
        for (int q = 0; q < queries.size(); q++) {
            Set<String> exact = new HashSet<>();
            best.get(q).forEach(e -> exact.add("m" + (long) e[1]));
            SearchQuery query = SearchQuery.vector(MemoryCorpus.TENANT, queries.get(q), 10);
            if (oneUser) {
                query = query.withUsers(Set.of(userOf(q)));
            }
            SearchResult result = index.search(query);
            int found = 0;
            for (Hit hit : result.hits()) {
                if (exact.contains(hit.id())) {
                    found++;
                }
            }
            sum += found / (double) Math.min(10, best.get(q).size());
        }
        return sum / queries.size();
    }

    private static String userOf(int query) {
        return "u" + (query % 200);
    }

    private void print(Result r) {
        out.printf(
                Locale.ROOT,
                "  %,d memories in %d segments, %d queries (after %d warm-up), load average %.2f:%n",
                r.size(),
                r.segments(),
                settings.queries(),
                settings.warmUp(),
                loadAverage());
        timed("query embedding", r.embedMillis(), r.embedCpuMillis());
        timed("hybrid top-10", r.searchMillis(), r.searchCpuMillis());
        split(r.textMillis(), r.vectorMillis());
        timed("hybrid top-10, one user", r.filteredMillis(), r.filteredCpuMillis());
        split(r.filteredTextMillis(), r.filteredVectorMillis());
        // A search stopped by a collection waits without using CPU: what separates wall from CPU times.
        out.printf(
                Locale.ROOT,
                "    garbage collections during the searches: %d, %d ms in all%n",
                r.gcPauses(),
                r.gcMillis());
        if (!Double.isNaN(r.knnRecall())) {
            out.printf(
                    Locale.ROOT,
                    "    kNN recall@10 against an exact scan: %.3f, one user %.3f (%d queries)%n",
                    r.knnRecall(),
                    r.filteredKnnRecall(),
                    Math.min(settings.exactChecks(), settings.queries()));
        }
    }

    /** One timed line: wall p50, p99 and max, then CPU p50 and p99 ({@link #percentiles}). */
    private void timed(String what, double[] wall, double[] cpu) {
        out.printf(
                Locale.ROOT,
                "    %-24s p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms  (CPU p50 %.2f, p99 %.2f ms)%n",
                what,
                wall[0],
                wall[1],
                wall[2],
                cpu[0],
                cpu[1]);
    }

    /** The BM25 and kNN lists' share of the search above, wall p50 and p99. */
    private void split(double[] text, double[] vector) {
        out.printf(Locale.ROOT, "      of which BM25          p50 %7.2f ms  p99 %7.2f ms%n", text[0], text[1]);
        out.printf(Locale.ROOT, "      of which kNN           p50 %7.2f ms  p99 %7.2f ms%n", vector[0], vector[1]);
    }

    /** p50, p99 and max in milliseconds (nearest rank). */
    static double[] percentiles(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new double[] {rank(sorted, 0.50) / 1e6, rank(sorted, 0.99) / 1e6, sorted[sorted.length - 1] / 1e6};
    }

    private static long rank(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static long[] gcCountAndMillis() {
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : 0;
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
