package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.app.AppProcess;
import io.reme.embedded.EmbeddedKafka;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code bench soak}: the application in a child JVM, fed agent sessions with tool calls through a
 * small window while its LLM endpoint turns good, failing, slow and context-limited, and killed with
 * SIGKILL at random moments, then started again on the same data directory. At the end it checks
 * the promises: every accepted message exactly once, live or archived (the {@code dialog} topic and
 * the dialog files agree), every archived message in its user's diary, no window above its maximum
 * input, no pending request older than the pending timeout; and it prints how long each restart
 * took to be READY and to serve every session's context.
 *
 * <p>The broker runs in this process, as a cluster would run apart from the application, so a kill
 * takes the application down and nothing else. Accepted means acknowledged by the broker.
 */
public final class SoakBenchmark {
    private static final String TENANT = "soak";
    private static final String KEY = "soak-key-0123456789abcdef";
    private static final int MAX_INPUT = FaultBenchOptions.MAX_INPUT;
    private static final Duration PENDING_TIMEOUT = FaultBenchOptions.PENDING_TIMEOUT;
    private static final int CONTEXT_LIMIT_CHARS = 10_000;
    private static final Topics TOPICS = Topics.withDefaultPrefix();

    /** What to run: load, faults and how long to wait for the pipeline to settle at the end. */
    public record Settings(
            int sessions,
            int turns,
            int kills,
            Duration minUp,
            Duration maxUp,
            Duration pace,
            Duration settleTimeout,
            long seed) {
        public Settings {
            if (sessions < 1 || turns < 1 || kills < 0) {
                throw new IllegalArgumentException("--sessions and --turns must be >= 1, --kills >= 0");
            }
            if (minUp.isNegative() || maxUp.compareTo(minUp) < 0) {
                throw new IllegalArgumentException("--min-up-ms must be >= 0 and <= --max-up-ms");
            }
            if (pace.isNegative() || settleTimeout.isNegative()) {
                throw new IllegalArgumentException("--pace-ms and --settle-timeout-s must be >= 0");
            }
        }
    }

    /** One kill and restart: when it happened, and how long until READY and until every context answered. */
    record Restart(int kill, long readyMs, long readableMs) {}

    private final Path dir;
    private final Settings settings;
    private final PrintStream out;
    private final Random random;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Accepted message ids per session, in production order. */
    private final Map<String, List<String>> accepted = new ConcurrentHashMap<>();
    /** Each session's user. */
    private final Map<String, String> users = new ConcurrentHashMap<>();

    private final AtomicReference<String> url = new AtomicReference<>();
    private final Map<String, Long> largestWindow = new ConcurrentHashMap<>();

    public SoakBenchmark(Path dir, Settings settings, PrintStream out) {
        this.dir = dir;
        this.settings = settings;
        this.out = out;
        this.random = new Random(settings.seed());
    }

    /** Runs the soak and returns whether every invariant held. */
    public boolean run() throws Exception {
        List<Restart> restarts = new ArrayList<>();
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"));
                LocalChatServer llm = LocalChatServer.start(Duration.ofMillis(20), CONTEXT_LIMIT_CHARS);
                KafkaProducer<byte[], byte[]> producer = producer(broker.bootstrapServers())) {
            Path config = writeConfig(llm.baseUrl());
            List<String> arguments = List.of(
                    "--bootstrap-servers",
                    broker.bootstrapServers(),
                    "--data-dir",
                    dir.resolve("app").toString(),
                    "--http-port",
                    "0",
                    "--config",
                    config.toString());
            AtomicBoolean stop = new AtomicBoolean();
            AppProcess app = AppProcess.start(arguments, dir.resolve("app-0.log"));
            try {
                url.set(app.awaitReady(Duration.ofSeconds(180)));
                out.printf(
                        "bench soak: sessions=%d turns=%d kills=%d seed=%d dir=%s%n",
                        settings.sessions(), settings.turns(), settings.kills(), settings.seed(), dir);
                Thread feeder = daemon("soak-feeder", () -> feed(producer, stop));
                Thread chaos = daemon("soak-chaos", () -> chaos(llm, stop));
                Thread watch = daemon("soak-watch", () -> watchWindows(stop));
                for (int kill = 1; kill <= settings.kills(); kill++) {
                    long upMs = settings.minUp().toMillis()
                            + (long) (random.nextDouble()
                                    * (settings.maxUp().toMillis()
                                            - settings.minUp().toMillis()));
                    Thread.sleep(upMs);
                    Set<String> known = new HashSet<>(accepted.keySet());
                    app.kill();
                    long killed = System.nanoTime();
                    url.set(null);
                    app = AppProcess.start(arguments, dir.resolve("app-" + kill + ".log"));
                    String next = app.awaitReady(Duration.ofSeconds(180));
                    long ready = System.nanoTime();
                    awaitReadable(next, known, Duration.ofSeconds(180));
                    long readable = System.nanoTime();
                    url.set(next);
                    Restart restart = new Restart(kill, (ready - killed) / 1_000_000, (readable - killed) / 1_000_000);
                    restarts.add(restart);
                    out.printf(
                            "kill %2d after %5d ms up: READY in %6d ms, every context readable in %6d ms%n",
                            kill, upMs, restart.readyMs(), restart.readableMs());
                }
                feeder.join();
                stop.set(true);
                chaos.join();
                llm.mode(LocalChatServer.Mode.GOOD);
                watch.join();
                return settleAndCheck(app, broker.bootstrapServers(), restarts);
            } finally {
                stop.set(true);
                app.close();
            }
        }
    }

    private Path writeConfig(String llmUrl) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("reme.api.keys", TENANT + ":" + KEY);
        options.putAll(FaultBenchOptions.compressed(4, llmUrl, Duration.ofSeconds(5), Duration.ofSeconds(15)));
        options.put("reme.embedding.provider", "none");
        options.put("reme.sinks.embedded", "true");
        return FaultBenchOptions.writeConfig(
                dir.resolve("soak.properties"), "bench soak: written for one run", options);
    }

    // ----------------------------------------------------------------------------- load and faults

    /** Produces every session's turns in a random interleaving, one turn per pace. */
    private void feed(KafkaProducer<byte[], byte[]> producer, AtomicBoolean stop) {
        Random turns = new Random(settings.seed() + 1);
        List<String> sessions = new ArrayList<>();
        Map<String, Integer> done = new HashMap<>();
        for (int i = 0; i < settings.sessions(); i++) {
            String session = String.format("soak-s%02d", i);
            sessions.add(session);
            users.put(session, "u" + (i % 3));
            done.put(session, 0);
        }
        while (!sessions.isEmpty() && !stop.get()) {
            String session = sessions.get(turns.nextInt(sessions.size()));
            int turn = done.merge(session, 1, Integer::sum) - 1;
            if (turn + 1 >= settings.turns()) {
                sessions.remove(session);
            }
            for (ObjectNode message : AgentTurns.turn(TENANT, session, users.get(session), turn, turns)) {
                try {
                    producer.send(new ProducerRecord<>(
                                    TOPICS.messages(),
                                    (TENANT + "/" + session).getBytes(StandardCharsets.UTF_8),
                                    Json.MAPPER.writeValueAsBytes(message)))
                            .get();
                } catch (Exception e) {
                    throw new IllegalStateException("producing failed", e);
                }
                accepted.computeIfAbsent(session, s -> new ArrayList<>())
                        .add(message.get("id").asText());
            }
            sleep(settings.pace().toMillis());
        }
    }

    /** Switches the LLM endpoint's mode every few seconds: mostly good, sometimes failing, slow or limited. */
    private void chaos(LocalChatServer llm, AtomicBoolean stop) {
        Random modes = new Random(settings.seed() + 2);
        while (!stop.get()) {
            double draw = modes.nextDouble();
            LocalChatServer.Mode mode = draw < 0.5
                    ? LocalChatServer.Mode.GOOD
                    : draw < 0.7
                            ? LocalChatServer.Mode.FAILING
                            : draw < 0.85 ? LocalChatServer.Mode.SLOW : LocalChatServer.Mode.CONTEXT_LIMITED;
            llm.mode(mode);
            sleep(3_000 + modes.nextInt(5_000));
        }
    }

    /** Samples every session's window once a second while the app answers, keeping the largest total. */
    private void watchWindows(AtomicBoolean stop) {
        while (!stop.get()) {
            String current = url.get();
            if (current != null) {
                for (String session : List.copyOf(accepted.keySet())) {
                    JsonNode context = context(current, session);
                    if (context != null) {
                        largestWindow.merge(
                                session, context.path("tokens").path("total").asLong(), Math::max);
                    }
                }
            }
            sleep(1_000);
        }
    }

    // ----------------------------------------------------------------------------- checks

    private void awaitReadable(String base, Set<String> sessions, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<String> waiting = new HashSet<>(sessions);
        while (!waiting.isEmpty()) {
            waiting.removeIf(session -> context(base, session) != null);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "contexts not readable within " + timeout.toSeconds() + " s: " + waiting);
            }
            if (!waiting.isEmpty()) {
                sleep(100);
            }
        }
    }

    /** Waits until every accepted message is counted, nothing is pending and the archive is in the diaries, then checks. */
    private boolean settleAndCheck(AppProcess app, String bootstrap, List<Restart> restarts) throws Exception {
        long deadline = System.nanoTime() + settings.settleTimeout().toNanos();
        Check check;
        while (true) {
            check = check(bootstrap);
            if (check.violations().isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            if (!app.isAlive()) {
                check.violations().add("the application exited:\n" + app.tail(40));
                break;
            }
            sleep(3_000);
        }
        report(restarts, check);
        return check.violations().isEmpty();
    }

    private record Check(
            long accepted, long live, long archived, long archivedFiles, long inDiaries, List<String> violations) {}

    private Check check(String bootstrap) throws IOException {
        List<String> violations = new ArrayList<>();
        String base = url.get();
        Properties client = new Properties();
        client.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Map<String, List<String>> archive = Archive.topicIds(client, TOPICS.dialog());
        Path workspace = dir.resolve("app").resolve("workspace");
        Map<String, List<String>> files = Archive.fileIds(workspace);
        Map<String, String> diaries = Archive.diaryText(workspace);
        long acceptedCount = 0;
        long liveCount = 0;
        long archivedCount = 0;
        long inDiaries = 0;
        for (Map.Entry<String, List<String>> entry : new TreeMap<>(accepted).entrySet()) {
            String session = entry.getKey();
            List<String> sent = List.copyOf(entry.getValue());
            acceptedCount += sent.size();
            JsonNode context = context(base, session);
            JsonNode window = context(base, session, true);
            if (context == null || window == null) {
                violations.add(session + ": context not readable");
                continue;
            }
            List<String> live = new ArrayList<>();
            window.path("messages")
                    .forEach(m -> live.add(m.path("message").path("id").asText()));
            List<String> archived = archive.getOrDefault(TENANT + "/" + session, List.of());
            List<String> filed = files.getOrDefault(TENANT + "/" + session, List.of());
            liveCount += live.size();
            archivedCount += archived.size();
            List<String> both = Stream.concat(archived.stream(), live.stream()).toList();
            Set<String> distinct = new HashSet<>(both);
            if (distinct.size() != both.size()) {
                violations.add(session + ": " + (both.size() - distinct.size()) + " messages twice (live or archived)");
            }
            if (!distinct.equals(new HashSet<>(sent))) {
                Set<String> missing = new HashSet<>(sent);
                missing.removeAll(distinct);
                Set<String> extra = new HashSet<>(distinct);
                extra.removeAll(sent);
                violations.add(session + ": missing " + missing.size() + " " + first(missing) + ", unexpected "
                        + extra.size() + " " + first(extra));
            }
            if (!new HashSet<>(filed).equals(new HashSet<>(archived)) || filed.size() != archived.size()) {
                violations.add(
                        session + ": dialog files hold " + filed.size() + " messages, the topic " + archived.size());
            }
            String diary = diaries.getOrDefault(TENANT + "/" + users.get(session), "");
            List<String> undiarised = archived.stream()
                    .filter(id -> !diary.contains("[soak:" + id + "]"))
                    .toList();
            inDiaries += archived.size() - undiarised.size();
            if (!undiarised.isEmpty()) {
                violations.add(
                        session + ": " + undiarised.size() + " archived messages in no diary " + first(undiarised));
            }
            long total = context.path("tokens").path("total").asLong();
            long largest = Math.max(total, largestWindow.getOrDefault(session, 0L));
            if (largest > MAX_INPUT) {
                violations.add(session + ": a served context reached " + largest + " tokens, above the maximum input "
                        + MAX_INPUT);
            }
            JsonNode pending = context.path("compaction").path("pending");
            if (pending.isObject()) {
                Instant requested = Instant.parse(pending.path("requestedAt").asText());
                if (requested.plus(PENDING_TIMEOUT).isBefore(Instant.now())) {
                    violations.add(session + ": a request pending since " + requested);
                } else {
                    violations.add(session + ": still pending (settling)");
                }
            }
        }
        return new Check(
                acceptedCount,
                liveCount,
                archivedCount,
                files.values().stream().mapToLong(Collection::size).sum(),
                inDiaries,
                violations);
    }

    private static String first(Collection<String> ids) {
        return ids.stream().sorted().limit(3).collect(Collectors.joining(", ", "[", ids.size() > 3 ? ", ...]" : "]"));
    }

    private void report(List<Restart> restarts, Check check) {
        if (!restarts.isEmpty()) {
            long[] ready =
                    restarts.stream().mapToLong(Restart::readyMs).sorted().toArray();
            long[] readable =
                    restarts.stream().mapToLong(Restart::readableMs).sorted().toArray();
            out.printf(
                    "restarts %d: READY p50 %d ms, max %d ms; every context readable p50 %d ms, max %d ms%n",
                    restarts.size(),
                    ready[ready.length / 2],
                    ready[ready.length - 1],
                    readable[readable.length / 2],
                    readable[readable.length - 1]);
        }
        long largest =
                largestWindow.values().stream().mapToLong(Long::longValue).max().orElse(0);
        out.printf(
                "accepted %d messages: live %d, archived %d (dialog files %d), archived in a diary %d; "
                        + "largest window %d of %d tokens%n",
                check.accepted(),
                check.live(),
                check.archived(),
                check.archivedFiles(),
                check.inDiaries(),
                largest,
                MAX_INPUT);
        if (check.violations().isEmpty()) {
            out.println("invariant held: every accepted message exactly once, archive in files and diaries, windows "
                    + "bounded, nothing pending");
        } else {
            out.println("invariant FAILED:");
            check.violations().forEach(v -> out.println("  " + v));
        }
    }

    /** A session's served context, or null if it does not answer 200. */
    private JsonNode context(String base, String session) {
        return context(base, session, false);
    }

    /** A session's context, served or its whole window; null if it does not answer 200. */
    private JsonNode context(String base, String session, boolean wholeWindow) {
        if (base == null) {
            return null;
        }
        return ApiReads.get(
                http, base + "/v1/sessions/" + session + "/context" + (wholeWindow ? "?window=all" : ""), KEY);
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
