package io.reme.bench;

import io.reme.app.Providers;
import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench ingest|search|llm|soak|cluster|restore|sessions|restart|reembed}: throughput benchmarks on a
 * throw-away embedded broker (ingest, llm) or a throw-away memory index (search), the fault soak (the application
 * in a child JVM, killed and restarted), the cluster faults (every part of a real cluster killed in
 * turn), the memory index's recovery (restore), one instance holding many live sessions (sessions), restarts of the
 * embedded default (restart) and a change of embedding model on a running instance (reembed).
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Run a benchmark: ingest, search, llm, soak, cluster, restore, sessions, restart or reembed.")
public final class BenchCommand implements Callable<Integer> {
    @Parameters(
            index = "0",
            paramLabel = "WHAT",
            description =
                    "ingest (session processor), search (memory index), llm (worker pool), soak (faults), cluster "
                            + "(faults of a real cluster), restore (the memory index after a crash and on a new disk), "
                            + "sessions (live sessions of one instance: memory, reads under load, restore) or restart "
                            + "(the embedded default started again after SIGTERM and after SIGKILL) or reembed (a change "
                            + "of embedding model on a running instance: its time, and searches during it)")
    String what;

    @Option(
            names = "--shapes",
            split = ",",
            paramLabel = "SxM",
            description = "ingest: sessions x messages per session, e.g. 20x1000,2x10000 (default).")
    List<String> shapes = List.of("20x1000", "2x10000");

    @Option(
            names = "--warmup",
            paramLabel = "SxM",
            description = "ingest: warm-up shape, not counted (default 20x1000).")
    String warmUp = "20x1000";

    @Option(
            names = "--warmup-rounds",
            description = "ingest: how many times the warm-up shape runs through each topology (default 4: "
                    + "the JIT compiles the session processor, the clients and the broker for three).")
    int warmUpRounds = 4;

    @Option(names = "--partitions", description = "ingest, restore, reembed: topic partitions (default 6).")
    int partitions = 6;

    @Option(names = "--threads", description = "ingest: stream threads (default 2).")
    int threads = 2;

    @Option(names = "--memories", description = "restore, reembed: memories in the index (default 100000).")
    long restoreMemories = 100_000;

    @Option(
            names = "--heap",
            description =
                    "restore, sessions, reembed: the instance's maximum heap, as -Xmx takes it (default: restore"
                            + " and reembed 4g, sessions 1536m, a 4 GB instance's with RocksDB's 512 MiB and room for the rest).")
    String heap;

    @Option(
            names = "--jvm-option",
            description = "sessions: one more option of the instance's JVM, e.g. -XX:+UseParallelGC (repeatable).")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = "--requests", description = "llm: COMPACT requests per concurrency (default 200).")
    int requests = 200;

    @Option(names = "--latency-ms", description = "llm: the local endpoint's answer time (default 500).")
    int latencyMs = 500;

    @Option(
            names = "--concurrency",
            split = ",",
            paramLabel = "C",
            description = "llm: worker concurrencies to measure (default 1,4,16).")
    List<Integer> concurrencies = List.of(1, 4, 16);

    @Option(
            names = "--sizes",
            split = ",",
            paramLabel = "N",
            description = "search: index sizes to measure at, growing (default 100000,1000000).")
    List<Integer> sizes = List.of(100_000, 1_000_000);

    @Option(
            names = "--queries",
            description = "search: measured queries per size (default 1000); reembed: searches before and after the"
                    + " change (default 1000).")
    int queries = 1000;

    @Option(
            names = "--search-pace-ms",
            description = "reembed: time between two searches during the change (default 100).")
    int searchPaceMs = 100;

    @Option(
            names = "--warmup-queries",
            description = "search: queries run first, not counted (default 3000: the "
                    + "JIT takes a few thousand searches to settle; 200 measures a freshly started JVM).")
    int warmUpQueries = 3000;

    @Option(names = "--index-threads", description = "search: threads writing the index (default 2).")
    int indexThreads = 2;

    @Option(
            names = "--commit-every",
            description = "search: memories between refresh-and-commits while indexing, as "
                    + "the store's Streams commits make them (default 0: once at the end).")
    int commitEvery;

    @Option(
            names = "--exact-checks",
            description = "search: queries whose kNN hits are checked against an exact scan (default 200; 0 skips).")
    // 50 left recall@10 at 10^6 within +-0.02 of the 200-query figure (0.944 against 0.968 on one index).
    int exactChecks = 200;

    @Option(
            names = "--commit-interval-ms",
            description = "Streams commit interval for bench ingest (default 100, as the app).")
    int commitIntervalMs = 100;

    @Option(
            names = "--kafka",
            paramLabel = "KEY=VALUE",
            description = "ingest: a Kafka client setting for the measured topologies, as the app's "
                    + "kafka.* entries (e.g. producer.compression.type=lz4); repeatable.")
    Map<String, String> kafka = new LinkedHashMap<>();

    @Option(
            names = "--sessions",
            description = "soak: sessions (default 12); sessions: live sessions (default 100000); restart: sessions "
                    + "fed before the first restart, ten turns each (default 20).")
    Integer sessions;

    @Option(
            names = "--messages",
            description = "sessions: messages per session, four per agent turn with a tool call (default 12).")
    int messagesPerSession = 12;

    @Option(names = "--tenants", description = "sessions: tenants the sessions belong to (default 10).")
    int tenants = 10;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "sessions: an application option for the instance measured, as in its config file "
                    + "(e.g. reme.streams.cache-max-bytes=0); repeatable.")
    Map<String, String> appOptions = new LinkedHashMap<>();

    @Option(
            names = "--steps",
            split = ",",
            description = "sessions: after the restart, open-loop steps at these shares of the maximum rate the "
                    + "full-speed load measured, e.g. 0.25,0.5,0.75; one JSON line each (default: none).")
    List<Double> steps = new ArrayList<>();

    @Option(
            names = "--rate",
            description = "sessions: one open-loop step at this many messages a second instead of --steps.")
    double rate;

    @Option(names = "--step-seconds", description = "sessions: how long each open-loop step lasts (default 60).")
    int stepSeconds = 60;

    @Option(names = "--rounds", description = "restart: SIGTERM and SIGKILL restarts of each (default 5).")
    int rounds = 5;

    @Option(names = "--turns", description = "soak: turns per session, four messages each (default 40).")
    int turns = 40;

    @Option(names = "--kills", description = "soak: SIGKILLs of the application (default 20).")
    int kills = 20;

    @Option(names = "--min-up-ms", description = "soak: shortest run between kills (default 5000).")
    long minUpMs = 5_000;

    @Option(names = "--max-up-ms", description = "soak: longest run between kills (default 15000).")
    long maxUpMs = 15_000;

    @Option(names = "--pace-ms", description = "soak, cluster: pause between two turns of the load (default 600).")
    long paceMs = 600;

    @Option(
            names = "--settle-timeout-s",
            description = "soak, cluster: how long the pipeline may take to settle after the last fault (default 300).")
    long settleTimeoutS = 300;

    @Option(names = "--instances", description = "cluster: application instances (default 2).")
    int instances = 2;

    @Option(
            names = "--sessions-per-tenant",
            description = "cluster: sessions of each of the three tenants (default 3).")
    int clusterSessions = 3;

    @Option(
            names = "--turn-ms",
            description = "cluster: each session's pause between two turns (default 2000: two cores carry three "
                    + "brokers, Connect, two instances and the workers; at 600 the quiet POST p99 was 12 s).")
    long turnMs = 2_000;

    @Option(
            names = "--faults",
            split = ",",
            paramLabel = "NAME",
            description = "cluster: which faults to inject, in their fixed order (default all: leader-kill, "
                    + "controller-kill, rolling-restart, instance-kill, workers-kill, connect-kill, disk-wipe).")
    List<String> faults = List.of();

    @Option(names = "--hold-s", description = "cluster: how long each fault lasts under load (default 20).")
    long holdS = 20;

    @Option(
            names = "--quiet-s",
            description = "cluster: load without a fault before the first and after each recovery (default 20).")
    long quietS = 20;

    @Option(
            names = "--scale",
            split = ",",
            paramLabel = "N",
            description = "cluster: instead of the faults, the same closed-loop load on fresh clusters of N "
                    + "instances each, e.g. 1,2,3: messages/s and CPU per message per instance.")
    List<Integer> scale = List.of();

    @Option(names = "--measure-s", description = "cluster --scale: measured seconds per instance count (default 60).")
    long measureS = 60;

    @Option(
            names = "--app-jar",
            description = "cluster: the application jar (default application/target/reme-streams-app.jar, from the "
                    + "repository root).")
    Path appJar = Path.of("application/target/reme-streams-app.jar");

    @Option(
            names = "--seed",
            description = "soak, cluster: seed of the load, the kills and the LLM's moods (default 42).")
    long seed = 42;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Scratch directory, kept (default: a new temp dir, deleted at the end).")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
        if (!List.of("ingest", "search", "llm", "soak", "cluster", "restore", "sessions", "restart", "reembed")
                .contains(what)) {
            System.err.println("unknown benchmark '" + what
                    + "'; available: ingest, search, llm, soak, cluster, restore, sessions, restart, reembed");
            return 2;
        }
        if (dataDir != null) {
            return run(dataDir);
        }
        // A temporary scratch directory goes when the run ends: the next run would otherwise pay for the
        // kernel writing back this one's gigabytes (seen as the second of two runs measuring slower).
        Path dir = Files.createTempDirectory("reme-bench");
        try {
            return run(dir);
        } finally {
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private int run(Path dir) throws Exception {
        if ("cluster".equals(what) && !scale.isEmpty()) {
            if (scale.stream().anyMatch(n -> n < 1 || n > 9) || clusterSessions < 1 || measureS < 1) {
                System.err.println("--scale takes instance counts 1 to 9; --sessions-per-tenant and --measure-s >= 1");
                return 2;
            }
            new ScaleOutBenchmark(
                            dir,
                            scale,
                            clusterSessions * 3,
                            Duration.ofSeconds(quietS),
                            Duration.ofSeconds(measureS),
                            appJar,
                            System.out)
                    .run();
            return 0;
        }
        if ("cluster".equals(what)) {
            if (!ClusterBenchmark.ALL_FAULTS.containsAll(faults)) {
                System.err.println("--faults takes " + ClusterBenchmark.ALL_FAULTS + ", not " + faults);
                return 2;
            }
            ClusterBenchmark.Settings settings;
            try {
                settings = new ClusterBenchmark.Settings(
                        instances,
                        clusterSessions,
                        Duration.ofMillis(turnMs),
                        Duration.ofSeconds(holdS),
                        Duration.ofSeconds(quietS),
                        Duration.ofSeconds(settleTimeoutS),
                        seed,
                        appJar,
                        faults);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return new ClusterBenchmark(dir, settings, System.out).run() ? 0 : 1;
        }
        if ("soak".equals(what)) {
            SoakBenchmark.Settings settings;
            try {
                settings = new SoakBenchmark.Settings(
                        sessions == null ? 12 : sessions,
                        turns,
                        kills,
                        Duration.ofMillis(minUpMs),
                        Duration.ofMillis(maxUpMs),
                        Duration.ofMillis(paceMs),
                        Duration.ofSeconds(settleTimeoutS),
                        seed);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return new SoakBenchmark(dir, settings, System.out).run() ? 0 : 1;
        }
        if ("restart".equals(what)) {
            try {
                new RestartBenchmark(dir, rounds, sessions == null ? 20 : sessions, System.out).run();
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return 0;
        }
        if ("sessions".equals(what)) {
            SessionsBenchmark bench;
            try {
                bench = new SessionsBenchmark(
                        dir,
                        sessions == null ? 100_000 : sessions,
                        messagesPerSession,
                        tenants,
                        partitions,
                        heap == null ? "1536m" : heap,
                        jvmOptions,
                        appOptions,
                        new RateSteps.Plan(steps, rate, Duration.ofSeconds(stepSeconds)),
                        System.out);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return bench.run() ? 0 : 1;
        }
        if ("restore".equals(what)) {
            try (EmbeddingModel model = Providers.embeddings(AppConfig.of(Map.of()))) {
                if (model == null) {
                    System.err.println("bench restore needs an embedding model (REME_EMBEDDING_PROVIDER is none)");
                    return 2;
                }
                RestoreBenchmark bench;
                try {
                    bench = new RestoreBenchmark(
                            dir,
                            restoreMemories,
                            partitions,
                            heap == null ? "4g" : heap,
                            MemoryCorpus.embeddedWith(model),
                            System.out);
                } catch (IllegalArgumentException e) {
                    System.err.println(e.getMessage());
                    return 2;
                }
                return bench.run() ? 0 : 1;
            }
        }
        if ("reembed".equals(what)) {
            // The old model's vectors for the corpus: MiniLM-q, the model a deployment changes from to bge-small.
            try (EmbeddingModel old = Providers.embeddings(AppConfig.of(Map.of(
                    AppConfig.EMBEDDING_LOCAL_MODEL.name(), "all-minilm-l6-v2-q",
                    AppConfig.EMBEDDING_CHINESE_MODEL.name(), "none")))) {
                ReembedBenchmark bench;
                try {
                    bench = new ReembedBenchmark(
                            dir,
                            restoreMemories,
                            partitions,
                            heap == null ? "4g" : heap,
                            MemoryCorpus.embeddedWith(old),
                            Duration.ofMillis(searchPaceMs),
                            queries,
                            System.out);
                } catch (IllegalArgumentException e) {
                    System.err.println(e.getMessage());
                    return 2;
                }
                bench.run();
                return 0;
            }
        }
        if ("search".equals(what)) {
            SearchBenchmark.Settings settings;
            try {
                settings = new SearchBenchmark.Settings(
                        sizes, queries, warmUpQueries, indexThreads, exactChecks, commitEvery);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            System.out.printf(
                    "bench search: sizes=%s queries=%d index-threads=%d dir=%s%n", sizes, queries, indexThreads, dir);
            try (EmbeddingModel model = Providers.embeddings(AppConfig.of(Map.of()))) {
                if (model == null) {
                    System.err.println("bench search needs an embedding model (REME_EMBEDDING_PROVIDER is none)");
                    return 2;
                }
                new SearchBenchmark(dir, model, settings, System.out).run();
            }
            return 0;
        }
        if ("llm".equals(what)) {
            if (requests < 1 || latencyMs < 0 || concurrencies.stream().anyMatch(c -> c < 1)) {
                System.err.println("--requests and --concurrency must be >= 1, --latency-ms >= 0");
                return 2;
            }
            new LlmBenchmark(dir, requests, Duration.ofMillis(latencyMs), System.out).run(concurrencies);
            return 0;
        }
        List<IngestBenchmark.Shape> parsed = new ArrayList<>();
        for (String shape : shapes) {
            parsed.add(shape(shape));
        }
        System.out.printf(
                "bench ingest: partitions=%d threads=%d exactly_once_v2 dir=%s%s%n",
                partitions, threads, dir, kafka.isEmpty() ? "" : " kafka=" + kafka);
        new IngestBenchmark(dir, partitions, threads, commitIntervalMs, kafka, System.out)
                .run(shape(warmUp), warmUpRounds, parsed);
        return 0;
    }

    private static IngestBenchmark.Shape shape(String text) {
        String[] parts = text.toLowerCase(Locale.ROOT).split("x");
        if (parts.length != 2) {
            throw new picocli.CommandLine.ParameterException(
                    new picocli.CommandLine(new BenchCommand()), "a shape is SESSIONSxMESSAGES, got '" + text + "'");
        }
        return new IngestBenchmark.Shape(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }
}
