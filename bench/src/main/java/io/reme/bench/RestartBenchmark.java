package io.reme.bench;

import io.reme.app.AppProcess;
import io.reme.json.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code bench restart}: the embedded default (broker, Streams, workers and file sinks in one child
 * JVM, as {@code run} starts without a cluster) on one data directory, stopped and started again: a
 * SIGTERM and a SIGKILL in turn, each timed from the launch of the next process to its READY line.
 * Before the first round, agent sessions are fed through the API, so the broker's logs and the stores
 * hold something to recover. Ends with one JSON line: the rounds, each restart's seconds, both medians
 * and their ratio.
 */
public final class RestartBenchmark {
    private static final String TENANT = "restart";
    private static final String KEY = "restart-key-0123456789abcdef";
    /** How long an instance runs after READY before it is stopped: its stores commit and checkpoint. */
    private static final Duration SETTLE = Duration.ofSeconds(15);

    private final Path dir;
    private final int rounds;
    private final int sessions;
    private final PrintStream out;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public RestartBenchmark(Path dir, int rounds, int sessions, PrintStream out) {
        if (rounds < 1 || sessions < 0) {
            throw new IllegalArgumentException("--rounds must be >= 1 and --sessions >= 0");
        }
        this.dir = dir;
        this.rounds = rounds;
        this.sessions = sessions;
        this.out = out;
    }

    public void run() throws Exception {
        Path config = FaultBenchOptions.writeConfig(
                dir.resolve("restart.properties"),
                "bench restart: written for one run",
                Map.of("reme.api.keys", TENANT + ":" + KEY));
        List<String> arguments =
                List.of("--data-dir", dir.resolve("app").toString(), "--http-port", "0", "--config", config.toString());
        AppProcess app = AppProcess.start(arguments, dir.resolve("first.log"));
        List<Double> clean = new ArrayList<>();
        List<Double> crash = new ArrayList<>();
        try {
            feed(app.awaitReady(Duration.ofMinutes(10)));
            Thread.sleep(SETTLE.toMillis());
            for (int round = 1; round <= rounds; round++) {
                app.close();
                long launched = System.nanoTime();
                app = AppProcess.start(arguments, dir.resolve("clean-" + round + ".log"));
                app.awaitReady(Duration.ofMinutes(10));
                clean.add(seconds(launched));
                Thread.sleep(SETTLE.toMillis());
                app.kill();
                launched = System.nanoTime();
                app = AppProcess.start(arguments, dir.resolve("crash-" + round + ".log"));
                app.awaitReady(Duration.ofMinutes(10));
                crash.add(seconds(launched));
                out.printf(
                        "round %d: after SIGTERM READY in %.1f s, after SIGKILL in %.1f s%n",
                        round, clean.getLast(), crash.getLast());
                Thread.sleep(SETTLE.toMillis());
            }
        } finally {
            app.close();
        }
        double cleanMedian = median(clean);
        double crashMedian = median(crash);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("rounds", rounds);
        line.put("sessions", sessions);
        line.put("clean_s", clean.stream().map(RestartBenchmark::round).toList());
        line.put("crash_s", crash.stream().map(RestartBenchmark::round).toList());
        line.put("clean_median_s", round(cleanMedian));
        line.put("crash_median_s", round(crashMedian));
        line.put("ratio", Math.round(crashMedian / cleanMedian * 100) / 100.0);
        out.println(Json.MAPPER.writeValueAsString(line));
    }

    /** Each session's turns through {@code POST /v1/messages}, one turn per request. */
    private void feed(String url) throws IOException, InterruptedException {
        Random random = new Random(42);
        int accepted = 0;
        for (int s = 0; s < sessions; s++) {
            String session = "restart-s" + s;
            for (int turn = 0; turn < 10; turn++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/messages"))
                        .header("Authorization", "Bearer " + KEY)
                        .header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(Json.MAPPER.writeValueAsBytes(
                                AgentTurns.turn(TENANT, session, "u" + (s % 3), turn, random))))
                        .build();
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 202) {
                    throw new IllegalStateException(
                            "POST /v1/messages answered " + response.statusCode() + ": " + response.body());
                }
                accepted += 4;
            }
        }
        out.printf("fed %d messages in %d sessions%n", accepted, sessions);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double round(double seconds) {
        return Math.round(seconds * 10) / 10.0;
    }
}
