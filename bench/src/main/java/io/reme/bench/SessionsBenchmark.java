package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.AppProcess;
import io.reme.app.ConversationGenerator;
import io.reme.embedded.EmbeddedKafka;
import io.reme.json.Json;
import io.reme.topic.Topics;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code bench sessions}: how many live sessions one instance holds, in how much memory, and how fast
 * it reads a context while it ingests at full speed. The application runs in a child JVM (as an
 * operator runs it, with {@code --heap}) against a broker in this process. The bench writes {@code
 * --sessions} sessions of {@code --messages} messages each (agent turns with tool calls, the shape of
 * {@code bench ingest}) straight to the {@code messages} topic as fast as the producer goes, while one
 * client reads the context of random sessions already written through the HTTP API. Once the instance
 * has consumed everything it reports the child's resident memory (peak and now), heap and RocksDB
 * native memory, checks a sample of sessions holds every message, kills the instance with SIGKILL,
 * starts it again on the same data directory and times until the sample reads whole again.
 */
public final class SessionsBenchmark {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    /** The application's default {@code application.id}, its consumer group. */
    private static final String APPLICATION_ID = "reme-streams";
    /** Sessions generated and sent together, interleaved as concurrent conversations arrive. */
    private static final int BLOCK = 1_000;
    /** Sessions read back after the load and after the restart, spread over every partition. */
    private static final int SAMPLE = 300;
    /** Context reads once the instance has consumed everything. */
    private static final int QUIET_READS = 1_000;

    private final Path dir;
    private final int sessions;
    private final int messagesPerSession;
    private final int tenants;
    private final int partitions;
    private final String heap;
    /** The instance's JVM options beside its heap: collectors and their settings, as a run compares them. */
    private final List<String> jvmOptions;

    private final Map<String, String> appOptions;
    private final RateSteps.Plan steps;
    private final PrintStream out;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public SessionsBenchmark(
            Path dir,
            int sessions,
            int messagesPerSession,
            int tenants,
            int partitions,
            String heap,
            List<String> jvmOptions,
            Map<String, String> appOptions,
            RateSteps.Plan steps,
            PrintStream out) {
        if (sessions < 1 || messagesPerSession < 1 || tenants < 1 || partitions < 1) {
            throw new IllegalArgumentException("--sessions, --messages, --tenants and --partitions must be >= 1");
        }
        this.dir = dir;
        this.sessions = sessions;
        this.messagesPerSession = messagesPerSession;
        this.tenants = Math.min(tenants, sessions);
        this.partitions = partitions;
        this.appOptions = Map.copyOf(appOptions);
        this.heap = heap;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.steps = steps;
        this.out = out;
    }

    private String tenant(int session) {
        return "tenant" + (session % tenants);
    }

    private static String key(String tenant) {
        return "sessions-bench-key-" + tenant;
    }

    private static String sessionId(int session) {
        return "s" + session;
    }

    /** Runs the load, the measures and the restart; prints one JSON line; false if a check failed. */
    public boolean run() throws Exception {
        out.printf(
                "bench sessions: sessions=%,d messages=%d tenants=%d partitions=%d heap=%s jvm=%s dir=%s%n",
                sessions, messagesPerSession, tenants, partitions, heap, jvmOptions, dir);
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"))) {
            Path config = writeConfig();
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("sessions", sessions);
            line.put("messages", (long) sessions * messagesPerSession);
            AppProcess app = start(broker, config, "loaded");
            try {
                String url = app.awaitReady(Duration.ofMinutes(5));
                Load load = load(broker.bootstrapServers(), url, app);
                line.put("ingest_per_s", Math.round(load.messages() / load.seconds()));
                line.put("input_mb", load.bytes() / (1024 * 1024));
                long[] quiet = quietReads(url);
                line.put("context_quiet_p50_ms", percentileMs(quiet, 0.50));
                line.put("context_quiet_p99_ms", percentileMs(quiet, 0.99));
                Memory memory = memory(app, url);
                line.put("rss_mb", memory.peakRssMb());
                line.put("rss_end_mb", memory.rssMb());
                line.put("heap_mb", memory.heapMb());
                line.put("rocksdb_mb", memory.rocksDbMb());
                line.put("state_dir_mb", sizeMb(dir.resolve("app").resolve("streams")));
                line.put("context_reads", load.reads().length);
                line.put("context_p50_ms", percentileMs(load.reads(), 0.50));
                line.put("context_p99_ms", percentileMs(load.reads(), 0.99));
                line.put("context_max_ms", percentileMs(load.reads(), 1.0));
                line.put("context_server_p50_ms", percentileMs(load.server(), 0.50));
                line.put("context_server_p99_ms", percentileMs(load.server(), 0.99));
                line.put("context_server_wait_p50_ms", percentileMs(load.waits(), 0.50));
                line.put("context_server_wait_p99_ms", percentileMs(load.waits(), 0.99));
                out.printf(
                        "loaded %,d messages (%,d MB) in %.1f s: %,.0f per s; %,d context reads while loading "
                                + "(%d not yet there): p50 %.2f ms, p99 %.2f ms, max %.1f ms%n",
                        load.messages(),
                        load.bytes() / (1024 * 1024),
                        load.seconds(),
                        load.messages() / load.seconds(),
                        load.reads().length,
                        load.notYet(),
                        percentileMs(load.reads(), 0.50),
                        percentileMs(load.reads(), 0.99),
                        percentileMs(load.reads(), 1.0));
                out.printf(
                        "  the instance's own time for those reads, from their first bytes to their answer"
                                + " (Server-Timing): p50 %.2f ms, p99 %.2f ms, max %.1f ms; of which before a worker"
                                + " began: p50 %.2f ms, p99 %.2f ms%n",
                        percentileMs(load.server(), 0.50),
                        percentileMs(load.server(), 0.99),
                        percentileMs(load.server(), 1.0),
                        percentileMs(load.waits(), 0.50),
                        percentileMs(load.waits(), 0.99));
                out.printf(
                        "%,d context reads once idle: p50 %.2f ms, p99 %.2f ms%n",
                        quiet.length, percentileMs(quiet, 0.50), percentileMs(quiet, 0.99));
                out.printf(
                        "memory: resident %,d MB (peak %,d MB), heap used %,d MB, RocksDB %,d MB of %,d MB%n",
                        memory.rssMb(),
                        memory.peakRssMb(),
                        memory.heapMb(),
                        memory.rocksDbMb(),
                        memory.rocksDbCapacityMb());
                List<Integer> sample = sample();
                String incomplete = incomplete(url, sample);
                if (incomplete != null) {
                    out.println("FAILED after the load: " + incomplete);
                    return false;
                }
                app.kill();
            } catch (Exception | Error e) {
                app.kill();
                throw e;
            }
            long launched = System.nanoTime();
            try (AppProcess again = start(broker, config, "after-kill")) {
                String url = again.awaitReady(Duration.ofMinutes(30));
                double readyS = seconds(launched);
                List<Integer> sample = sample();
                long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
                String incomplete;
                while ((incomplete = incomplete(url, sample)) != null) {
                    again.requireAlive();
                    if (System.nanoTime() > deadline) {
                        out.println("FAILED: not whole 30 min after the restart: " + incomplete);
                        return false;
                    }
                    Thread.sleep(200);
                }
                double restoreS = seconds(launched);
                line.put("ready_s", round(readyS));
                line.put("restore_s", round(restoreS));
                out.printf(
                        "kill -9 and restart: READY %.1f s after the launch, the sample whole %.1f s after%n",
                        readyS, restoreS);
                out.println(Json.MAPPER.writeValueAsString(line));
                if (steps.any()) {
                    runSteps(broker.bootstrapServers(), url, again, ((Number) line.get("ingest_per_s")).doubleValue());
                }
            }
            return true;
        }
    }

    /** The open-loop steps on the restarted instance: one JSON line each. */
    private void runSteps(String bootstrap, String url, AppProcess app, double maxRate) throws Exception {
        new RateSteps(
                        bootstrap,
                        APPLICATION_ID,
                        partitions,
                        messagesPerSession,
                        tenants,
                        sessions,
                        session -> read(url, session),
                        out)
                .runAll(steps, maxRate, app);
    }

    /**
     * What the load measured: {@code reads} are the client's latencies of its 200 answers, {@code server}
     * the instance's own time for each and {@code waits} the part of it before a worker began to handle
     * the request (its {@code Server-Timing}), in nanoseconds, each sorted.
     */
    private record Load(
            long messages, long bytes, double seconds, long[] reads, long[] server, long[] waits, int notYet) {}

    /**
     * Writes every session at full speed while one client reads contexts of sessions already sent; ends
     * when the application's group has committed the end of the topic.
     */
    private Load load(String bootstrap, String url, AppProcess app) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * 1024 * 1024);
        AtomicInteger sent = new AtomicInteger();
        AtomicBoolean loading = new AtomicBoolean(true);
        List<Long> latencies = new ArrayList<>();
        List<Long> serverTimes = new ArrayList<>();
        List<Long> waitTimes = new ArrayList<>();
        AtomicInteger notYet = new AtomicInteger();
        Thread reader = Thread.ofPlatform().name("context-reader").start(() -> {
            Random random = new Random(7);
            while (loading.get()) {
                int written = sent.get();
                if (written == 0) {
                    pause(50);
                    continue;
                }
                int session = random.nextInt(written);
                long started = System.nanoTime();
                Answer answer = read(url, session);
                long nanos = System.nanoTime() - started;
                int status = answer.status();
                if (status == 200) {
                    latencies.add(nanos);
                    if (answer.serverNanos() >= 0) {
                        serverTimes.add(answer.serverNanos());
                        waitTimes.add(answer.waitNanos());
                    }
                } else if (status == 404) {
                    notYet.incrementAndGet();
                }
                // A client asking about fifty times a second: enough reads for a p99 over a load of 20 s,
                // and still a sample of the latency, not a load on the API.
                pause(20);
            }
        });
        long started = System.nanoTime();
        long bytes = 0;
        ConversationGenerator generator = new ConversationGenerator(42, 25, 150_000);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int first = 0; first < sessions; first += BLOCK) {
                int last = Math.min(sessions, first + BLOCK);
                Instant start = Instant.now().minusSeconds(messagesPerSession);
                List<List<ConversationGenerator.Envelope>> block = new ArrayList<>();
                for (int s = first; s < last; s++) {
                    block.add(generator.session(tenant(s), sessionId(s), "u" + (s % 97), messagesPerSession, start));
                }
                for (int m = 0; m < messagesPerSession; m++) {
                    for (List<ConversationGenerator.Envelope> session : block) {
                        ConversationGenerator.Envelope envelope = session.get(m);
                        bytes += envelope.value().length;
                        producer.send(new ProducerRecord<>(
                                TOPICS.messages(), envelope.key().getBytes(StandardCharsets.UTF_8), envelope.value()));
                    }
                }
                producer.flush();
                sent.set(last);
                app.requireAlive();
                if (last % (BLOCK * 20) == 0) {
                    out.printf("  ... %,d sessions written, %.0f s%n", last, seconds(started));
                }
            }
        }
        out.printf("written in %.1f s; waiting for the instance to consume it%n", seconds(started));
        awaitConsumed(bootstrap, app);
        double loadS = seconds(started);
        loading.set(false);
        reader.join();
        long[] reads = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] server = serverTimes.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] waits = waitTimes.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Load((long) sessions * messagesPerSession, bytes, loadS, reads, server, waits, notYet.get());
    }

    /** The same reads with nothing else running: what a read costs, apart from the load's contention. */
    private long[] quietReads(String url) {
        Random random = new Random(11);
        List<Long> latencies = new ArrayList<>();
        for (int i = 0; i < QUIET_READS; i++) {
            int session = random.nextInt(sessions);
            long started = System.nanoTime();
            if (status(url, session) == 200) {
                latencies.add(System.nanoTime() - started);
            }
            pause(5);
        }
        return latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private int status(String url, int session) {
        return read(url, session).status();
    }

    /**
     * A context read's status (-1: no answer) and, from its {@code Server-Timing} header, the instance's
     * time for it from the request's first bytes to its answer and the part of that before a worker
     * began to handle it (-1 without them).
     */
    record Answer(int status, long serverNanos, long waitNanos) {}

    private static final Pattern SERVER_TIMING = Pattern.compile("total;dur=([0-9.]+), wait;dur=([0-9.]+)");

    Answer read(String url, int session) {
        HttpRequest request = contextRequest(url, session);
        try {
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            Matcher timing = SERVER_TIMING.matcher(
                    response.headers().firstValue("Server-Timing").orElse(""));
            if (!timing.find()) {
                return new Answer(response.statusCode(), -1, -1);
            }
            long serverNanos = Math.round(Double.parseDouble(timing.group(1)) * 1e6);
            long waitNanos = Math.round(Double.parseDouble(timing.group(2)) * 1e6);
            return new Answer(response.statusCode(), serverNanos, waitNanos);
        } catch (IOException e) {
            return new Answer(-1, -1, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(-1, -1, -1);
        }
    }

    private HttpRequest contextRequest(String url, int session) {
        return HttpRequest.newBuilder(URI.create(url + "/v1/sessions/" + sessionId(session) + "/context"))
                .header("Authorization", "Bearer " + key(tenant(session)))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
    }

    /** Until the application's group has committed the end offset of every {@code messages} partition. */
    private void awaitConsumed(String bootstrap, AppProcess app) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetSpec> ends = new LinkedHashMap<>();
            for (int p = 0; p < partitions; p++) {
                ends.put(new TopicPartition(TOPICS.messages(), p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> end = new LinkedHashMap<>();
            admin.listOffsets(ends).all().get().forEach((tp, info) -> end.put(tp, info.offset()));
            long reported = System.nanoTime();
            while (true) {
                app.requireAlive();
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(APPLICATION_ID)
                        .partitionsToOffsetAndMetadata()
                        .get();
                long lag = 0;
                for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
                    OffsetAndMetadata at = committed.get(e.getKey());
                    lag += Math.max(0, e.getValue() - (at == null ? 0 : at.offset()));
                }
                if (lag == 0) {
                    return;
                }
                if (System.nanoTime() - reported > Duration.ofSeconds(30).toNanos()) {
                    out.printf("  ... %,d messages still to consume%n", lag);
                    reported = System.nanoTime();
                }
                Thread.sleep(500);
            }
        }
    }

    /** Sessions spread over the range, fixed by the seed: the same sample after the restart. */
    private List<Integer> sample() {
        Random random = new Random(11);
        List<Integer> sample = new ArrayList<>();
        for (int i = 0; i < Math.min(SAMPLE, sessions); i++) {
            sample.add(random.nextInt(sessions));
        }
        return sample;
    }

    /** Null if every sampled session answers with all its messages; otherwise what the first one lacks. */
    private String incomplete(String url, List<Integer> sample) {
        for (int session : sample) {
            JsonNode view =
                    ApiReads.get(http, url + "/v1/sessions/" + sessionId(session) + "/context", key(tenant(session)));
            if (view == null) {
                return "session " + sessionId(session) + " of " + tenant(session) + " did not answer";
            }
            int held = view.path("messages").size()
                    + view.path("tokens").path("omittedMessages").asInt();
            if (held != messagesPerSession) {
                return "session " + sessionId(session) + " of " + tenant(session) + " holds " + held + " of "
                        + messagesPerSession + " messages";
            }
        }
        return null;
    }

    /** The child's memory: resident from {@code /proc}, heap and RocksDB from its {@code /metrics}. */
    private record Memory(long rssMb, long peakRssMb, long heapMb, long rocksDbMb, long rocksDbCapacityMb) {}

    private Memory memory(AppProcess app, String url) throws IOException, InterruptedException {
        String status = Files.readString(Path.of("/proc", Long.toString(app.pid()), "status"));
        HttpResponse<String> metrics = http.send(
                HttpRequest.newBuilder(URI.create(url + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        String text = metrics.body();
        return new Memory(
                procKb(status, "VmRSS") / 1024,
                procKb(status, "VmHWM") / 1024,
                (long) (sum(text, "jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*\\}") / (1024 * 1024)),
                (long) (sum(text, "reme_rocksdb_memory_used_bytes") / (1024 * 1024)),
                (long) (sum(text, "reme_rocksdb_memory_capacity_bytes") / (1024 * 1024)));
    }

    private static long procKb(String status, String field) {
        Matcher m = Pattern.compile("(?m)^" + field + ":\\s+(\\d+) kB").matcher(status);
        if (!m.find()) {
            throw new IllegalStateException("no " + field + " in /proc status");
        }
        return Long.parseLong(m.group(1));
    }

    /** The sum of every sample of the series matching {@code series} (name and optional labels). */
    static double sum(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + series + "(?:\\{[^}]*\\})? ([0-9.eE+-]+|NaN)$")
                .matcher(exposition);
        double total = 0;
        boolean found = false;
        while (m.find()) {
            found = true;
            if (!"NaN".equals(m.group(1))) {
                total += Double.parseDouble(m.group(1));
            }
        }
        if (!found) {
            throw new IllegalStateException("no series " + series + " in /metrics");
        }
        return total;
    }

    private AppProcess start(EmbeddedKafka broker, Path config, String phase) throws IOException {
        return AppProcess.start(
                Stream.concat(Stream.of("-Xmx" + heap), jvmOptions.stream()).toList(),
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

    private Path writeConfig() throws IOException {
        StringBuilder keys = new StringBuilder();
        for (int t = 0; t < tenants; t++) {
            keys.append(t == 0 ? "" : ",")
                    .append("tenant")
                    .append(t)
                    .append(':')
                    .append(key("tenant" + t));
        }
        Map<String, String> options = new LinkedHashMap<>();
        options.put("reme.api.keys", keys.toString());
        options.put("reme.embedding.provider", "none");
        options.put("reme.topic.partitions", Integer.toString(partitions));
        options.put("reme.workers.embedded", "false");
        // The run is the load, not the diaries: no session goes quiet for a diary update while it lasts.
        options.put("reme.session.idle-after", "6h");
        options.putAll(appOptions);
        return FaultBenchOptions.writeConfig(
                dir.resolve("sessions.properties"), "bench sessions: written for one run", options);
    }

    private static long sizeMb(Path root) {
        return DiskUsage.bytes(root, path -> true) / (1024 * 1024);
    }

    static double percentileMs(long[] sortedNanos, double q) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.min(sortedNanos.length - 1, Math.ceil(q * sortedNanos.length) - 1);
        return Math.round(sortedNanos[Math.max(0, index)] / 1e4) / 100.0;
    }

    static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static double round(double seconds) {
        return Math.round(seconds * 10) / 10.0;
    }
}
