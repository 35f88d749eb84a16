package io.reme.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.cluster.ClusterSpec;
import io.reme.cluster.LocalCluster;
import io.reme.json.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench cluster --scale 1,2,3}: the same closed-loop load (sessions posting turns through the
 * API as fast as they are accepted) on the local cluster with 1, 2 and 3 application instances, each
 * on a fresh cluster. Per instance count it reports the messages the pipeline took in per second
 * (the instances' {@code reme_messages_in_total}) and the CPU each instance, and the three Kafka
 * nodes together, spent per message (from {@code /proc/<pid>/stat}), so an operator knows what one
 * more instance buys on this hardware.
 */
final class ScaleOutBenchmark {
    private static final long TICKS_PER_SECOND = 100;

    private final Path dir;
    private final List<Integer> counts;
    private final int sessions;
    private final Duration warmUp;
    private final Duration measure;
    private final Path appJar;
    private final PrintStream out;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ScaleOutBenchmark(
            Path dir,
            List<Integer> counts,
            int sessions,
            Duration warmUp,
            Duration measure,
            Path appJar,
            PrintStream out) {
        this.dir = dir;
        this.counts = List.copyOf(counts);
        this.sessions = sessions;
        this.warmUp = warmUp;
        this.measure = measure;
        this.appJar = appJar;
        this.out = out;
    }

    void run() throws Exception {
        out.printf(
                "bench cluster --scale %s: %d sessions posting turns closed-loop, %d s warm-up, %d s measured, dir=%s%n",
                counts, sessions, warmUp.toSeconds(), measure.toSeconds(), dir);
        for (int instances : counts) {
            LocalCluster cluster = LocalCluster.in(
                    dir.resolve("scale-" + instances),
                    new LocalCluster.Options(instances, false, true, appJar, false, Map.of()));
            try {
                cluster.start(Duration.ofMinutes(10));
                measure(cluster, instances);
            } finally {
                cluster.stop();
            }
        }
    }

    private void measure(LocalCluster cluster, int instances) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong posted = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        ClusterSpec spec = cluster.spec();
        List<String> tenants = List.copyOf(spec.apiKeys().keySet());
        for (int s = 0; s < sessions; s++) {
            String tenant = tenants.get(s % tenants.size());
            String session = "scale-" + s;
            int instance = 1 + s % instances;
            Random random = new Random(s);
            writers.add(Thread.ofPlatform().daemon().name("writer-" + s).start(() -> {
                for (int turn = 0; !stop.get(); turn++) {
                    ArrayNode batch = Json.MAPPER.createArrayNode();
                    AgentTurns.turn(tenant, session, "u" + turn % 2, turn, random)
                            .forEach(message -> {
                                message.remove("tenant");
                                batch.add(message);
                            });
                    if (post(spec.appUrl(instance), spec.apiKey(tenant), batch)) {
                        posted.addAndGet(batch.size());
                    }
                }
            }));
        }
        Thread.sleep(warmUp.toMillis());
        long[] inBefore = new long[instances];
        long[] cpuBefore = new long[instances];
        for (int i = 1; i <= instances; i++) {
            inBefore[i - 1] = messagesIn(spec.appUrl(i));
            cpuBefore[i - 1] = cpuTicks(
                    cluster.instance(i).process().handle().orElseThrow().pid());
        }
        long brokersBefore = brokerTicks(cluster);
        long postedBefore = posted.get();
        long started = System.nanoTime();
        Thread.sleep(measure.toMillis());
        double seconds = (System.nanoTime() - started) / 1e9;
        long brokerTicks = brokerTicks(cluster) - brokersBefore;
        long postedCount = posted.get() - postedBefore;
        long total = 0;
        StringBuilder perInstance = new StringBuilder();
        for (int i = 1; i <= instances; i++) {
            long in = messagesIn(spec.appUrl(i)) - inBefore[i - 1];
            long ticks = cpuTicks(
                            cluster.instance(i).process().handle().orElseThrow().pid())
                    - cpuBefore[i - 1];
            total += in;
            perInstance.append(String.format(
                    " app-%d: %d msg/s, %.0f µs CPU/msg, %.0f %% of a core;",
                    i, Math.round(in / seconds), micros(ticks, in), 100.0 * ticks / TICKS_PER_SECOND / seconds));
        }
        stop.set(true);
        for (Thread writer : writers) {
            writer.join(Duration.ofSeconds(60));
        }
        out.printf(
                "instances=%d: %d msg/s taken in (%d msg/s accepted by the API);%s brokers %.0f µs CPU/msg%n",
                instances,
                Math.round(total / seconds),
                Math.round(postedCount / seconds),
                perInstance,
                micros(brokerTicks, total));
        ObjectNode line = Json.MAPPER.createObjectNode();
        line.put("instances", instances);
        line.put("msg_per_s", Math.round(total / seconds));
        line.put("broker_cpu_us_per_msg", Math.round(micros(brokerTicks, total)));
        out.println(line);
    }

    private boolean post(String url, String key, ArrayNode batch) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/messages"))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(batch.toString()))
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() / 100 == 2;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The instance's {@code reme_messages_in_total}, every tenant's series summed. */
    private long messagesIn(String url) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        String text = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("reme_messages_in_total")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Math.round(sum);
    }

    private static long brokerTicks(LocalCluster cluster) throws IOException {
        long ticks = 0;
        for (int node = 1; node <= LocalCluster.NODES; node++) {
            ticks +=
                    cpuTicks(cluster.node(node).process().handle().orElseThrow().pid());
        }
        return ticks;
    }

    /** utime + stime of a process, in clock ticks (fields 14 and 15 of {@code /proc/<pid>/stat}). */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // After the command name, the fields start at the 3rd: utime is the 14th, stime the 15th.
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static double micros(long ticks, long messages) {
        return messages == 0 ? 0 : ticks * 1e6 / TICKS_PER_SECOND / messages;
    }
}
