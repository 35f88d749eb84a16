package io.reme.cli;

import io.reme.bench.IngestBenchmark;
import io.reme.bench.LlmBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code bench ingest|llm}: throughput benchmarks on a throw-away embedded broker. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run a benchmark: ingest or llm.")
final class BenchCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "WHAT", description = "ingest (session processor) or llm (worker pool)")
    String what;

    @Option(names = "--shapes", split = ",", paramLabel = "SxM",
            description = "ingest: sessions x messages per session, e.g. 20x1000,2x10000 (default).")
    List<String> shapes = List.of("20x1000", "2x10000");

    @Option(names = "--warmup", paramLabel = "SxM", description = "ingest: warm-up shape, not counted (default 4x1000).")
    String warmUp = "4x1000";

    @Option(names = "--partitions", description = "ingest: topic partitions (default 6).")
    int partitions = 6;

    @Option(names = "--threads", description = "ingest: stream threads (default 2).")
    int threads = 2;

    @Option(names = "--requests", description = "llm: COMPACT requests per concurrency (default 200).")
    int requests = 200;

    @Option(names = "--latency-ms", description = "llm: the local endpoint's answer time (default 500).")
    int latencyMs = 500;

    @Option(names = "--concurrency", split = ",", paramLabel = "C",
            description = "llm: worker concurrencies to measure (default 1,4,16).")
    List<Integer> concurrencies = List.of(1, 4, 16);

    @Option(names = "--commit-interval-ms", description = "Streams commit interval for bench ingest (default 100, as the app).")
    int commitIntervalMs = 100;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Scratch directory (default: a new temp dir).")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
        if (!"ingest".equals(what) && !"llm".equals(what)) {
            System.err.println("unknown benchmark '" + what + "'; available: ingest, llm");
            return 2;
        }
        Path dir = dataDir != null ? dataDir : Files.createTempDirectory("reme-bench");
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
        System.out.printf("bench ingest: partitions=%d threads=%d exactly_once_v2 dir=%s%n", partitions, threads, dir);
        new IngestBenchmark(dir, partitions, threads, commitIntervalMs, System.out).run(shape(warmUp), parsed);
        return 0;
    }

    private static IngestBenchmark.Shape shape(String text) {
        String[] parts = text.toLowerCase(java.util.Locale.ROOT).split("x");
        if (parts.length != 2) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new BenchCommand()),
                    "a shape is SESSIONSxMESSAGES, got '" + text + "'");
        }
        return new IngestBenchmark.Shape(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }
}
