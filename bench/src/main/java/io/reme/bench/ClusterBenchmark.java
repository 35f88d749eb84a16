package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.bench.ClusterFaults.Fault;
import io.reme.bench.ClusterLedger.Session;
import io.reme.bench.ClusterLedger.Tally;
import io.reme.cluster.LocalCluster;
import io.reme.json.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * {@code bench cluster}: the application on a real cluster ({@link LocalCluster}: three Kafka processes
 * with SASL and ACLs, Connect in distributed mode, instances and a workers process), driven by agent
 * sessions of several tenants through the HTTP API while one fault after another hits it: the leader
 * of a busy {@code messages} partition and the active controller killed, a rolling restart of the
 * brokers, an instance, the workers and Connect killed, a broker's disk wiped. Between faults the
 * cluster recovers until every replica is in sync.
 *
 * <p>The ledger holds every message and memory the API accepted (a 2xx); a POST that failed or timed
 * out is sent again with the same ids, to either instance, until it is accepted. At the end it checks
 * the promises: each accepted message exactly once and in order, live or archived; the dialog files
 * equal the topic; each archived message in a diary or a dead letter; each accepted memory listed and
 * found by search; no served window above its maximum. It prints, per fault, the longest time a POST
 * and a context read failed and the POST p99 against the quiet one, then one JSON line.
 *
 * <p>The faults are {@link ClusterFaults}; the ledger and its check, {@link ClusterLedger}; this class drives
 * the load and measures each phase.
 */
public final class ClusterBenchmark {
    private static final int MAX_INPUT = FaultBenchOptions.MAX_INPUT;

    /**
     * What to run.
     *
     * @param hold how long each fault lasts under load before the part is brought back
     * @param quiet load without faults, before the first (the quiet p99) and after each recovery
     */
    public record Settings(
            int instances,
            int sessionsPerTenant,
            Duration pace,
            Duration hold,
            Duration quiet,
            Duration settleTimeout,
            long seed,
            Path appJar,
            List<String> faults) {
        public Settings {
            faults = List.copyOf(faults);
            if (instances < 2) {
                throw new IllegalArgumentException("--instances must be >= 2: one is killed while the others serve");
            }
            if (sessionsPerTenant < 1) {
                throw new IllegalArgumentException("--sessions must be >= 1");
            }
        }
    }

    /** What one phase (quiet, or a fault from injection to whole again) measured. */
    private static final class Phase {
        final List<Long> postMs = new CopyOnWriteArrayList<>();
        volatile long longestPostFailureMs;
        volatile long longestReadFailureMs;
        volatile long unavailableAfterWholeMs;
        /** Why requests failed: "read 2: 503", "post 1: ConnectException", with how often. */
        final Map<String, LongAdder> failures = new ConcurrentSkipListMap<>();

        void failed(String what, int instance, String why) {
            failures.computeIfAbsent(what + " " + instance + ": " + why, k -> new LongAdder())
                    .increment();
        }

        synchronized void postFailed(long ms) {
            longestPostFailureMs = Math.max(longestPostFailureMs, ms);
        }

        synchronized void readFailed(long ms) {
            longestReadFailureMs = Math.max(longestReadFailureMs, ms);
        }

        long p99() {
            List<Long> sorted = postMs.stream().sorted().toList();
            return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * 0.99)));
        }
    }

    private final Path dir;
    private final Settings settings;
    private final PrintStream out;
    private final AtomicReference<Phase> phase = new AtomicReference<>(new Phase()); // the warm-up
    private final List<Phase> phases = new CopyOnWriteArrayList<>();
    private LocalCluster cluster;
    private ClusterApi api;
    /** Made once the cluster has started (its tenants name the sessions), before the load's threads. */
    private ClusterLedger ledger;

    public ClusterBenchmark(Path dir, Settings settings, PrintStream out) {
        this.dir = dir;
        this.settings = settings;
        this.out = out;
    }

    /** Runs the load and the faults and returns whether every invariant held. */
    public boolean run() throws Exception {
        try (LocalChatServer llm = LocalChatServer.start(Duration.ofMillis(20))) {
            long started = System.nanoTime();
            cluster = LocalCluster.in(
                    dir,
                    new LocalCluster.Options(
                            settings.instances(), true, true, settings.appJar(), false, appEnvironment(llm)));
            api = new ClusterApi(cluster, settings.instances());
            try {
                cluster.start(Duration.ofMinutes(10));
                out.printf(
                        "bench cluster: brokers=%d instances=%d sessions=%d (tenants %s) dir=%s, started in %d s%n",
                        LocalCluster.NODES,
                        settings.instances(),
                        settings.sessionsPerTenant() * cluster.spec().apiKeys().size(),
                        cluster.spec().apiKeys().keySet(),
                        dir,
                        (System.nanoTime() - started) / 1_000_000_000);
                return drive();
            } finally {
                cluster.stop();
            }
        }
    }

    private boolean drive() throws Exception {
        Random random = new Random(settings.seed());
        List<Session> sessions = new ArrayList<>();
        for (String tenant : cluster.spec().apiKeys().keySet()) {
            for (int i = 0; i < settings.sessionsPerTenant(); i++) {
                sessions.add(new Session(tenant, String.format("s%02d", i), "u" + (i % 2)));
            }
        }
        ledger = new ClusterLedger(sessions);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        for (Session session : sessions) {
            long seed = random.nextLong();
            load.add(Thread.ofPlatform()
                    .daemon()
                    .name("writer-" + session.key())
                    .start(() -> write(session, new Random(seed), stop)));
        }
        // One reader per session: a read that hangs until its timeout must not make every other session
        // look unreadable for as long.
        for (Session session : sessions) {
            load.add(
                    Thread.ofPlatform().daemon().name("reader-" + session.key()).start(() -> read(session, stop)));
        }

        List<Fault> faults = new ClusterFaults(
                        cluster, sessions.stream().map(Session::key).toList(), settings.seed())
                .chosen(settings.faults());
        // The first minute of load meets cold JVMs, producers and caches: not what "quiet" means.
        pause(settings.quiet());
        Phase quietBefore = new Phase();
        phase.set(quietBefore);
        phases.add(quietBefore);
        pause(settings.quiet());
        for (Fault fault : faults) {
            Phase current = new Phase();
            phase.set(current);
            phases.add(current);
            long injected = System.nanoTime();
            fault.inject().run();
            pause(settings.hold());
            fault.recover().run();
            long whole = System.nanoTime();
            current.unavailableAfterWholeMs = untilEveryContextAnswers();
            cluster.awaitInSync(Duration.ofMinutes(5));
            out.printf(
                    "%-16s whole again %5.1f s after the fault; POSTs failed for at most %6d ms, context reads for"
                            + " %6d ms; POST p99 %6d ms (quiet %d ms); every session readable %5d ms after whole%n",
                    fault.name(),
                    (whole - injected) / 1e9,
                    current.longestPostFailureMs,
                    current.longestReadFailureMs,
                    current.p99(),
                    phases.get(0).p99(),
                    current.unavailableAfterWholeMs);
            if (!current.failures.isEmpty()) {
                out.printf("%-16s failed requests by instance and cause: %s%n", "", current.failures);
            }
            Phase quiet = new Phase();
            phase.set(quiet);
            pause(settings.quiet());
        }
        stop.set(true);
        for (Thread thread : load) {
            thread.join(Duration.ofMinutes(2));
        }
        return settleAndCheck(faults.size());
    }

    /** The names of every fault, in the order they are injected. */
    public static final List<String> ALL_FAULTS = List.of(
            "leader-kill",
            "controller-kill",
            "rolling-restart",
            "instance-kill",
            "workers-kill",
            "connect-kill",
            "disk-wipe");

    private static Map<String, String> appEnvironment(LocalChatServer llm) {
        return FaultBenchOptions.asEnvironment(
                FaultBenchOptions.compressed(6, llm.baseUrl(), Duration.ofSeconds(10), Duration.ofSeconds(20)));
    }

    // ----------------------------------------------------------------------------- load

    /** One session: a turn per POST, the next only once the last was accepted; now and then a memory. */
    private void write(Session session, Random random, AtomicBoolean stop) {
        for (int turn = 0; !stop.get(); turn++) {
            ArrayNode batch = Json.MAPPER.createArrayNode();
            List<String> ids = new ArrayList<>();
            for (ObjectNode message : AgentTurns.turn(session.tenant(), session.id(), session.user(), turn, random)) {
                message.remove("tenant");
                batch.add(message);
                ids.add(message.get("id").asText());
            }
            postUntilAccepted(session, "/v1/messages", batch.toString());
            ledger.accepted(session, ids);
            if (turn % 10 == 5) {
                String word = "kappa" + session.tenant() + session.id() + "t" + turn;
                ObjectNode memory = Json.MAPPER
                        .createObjectNode()
                        .put("type", "personal")
                        .put("user", session.user())
                        .put("session", session.id())
                        .put("content", session.user() + " keeps the " + word + " runbook for module " + turn % 7);
                JsonNode answer = postUntilAccepted(session, "/v1/memories", memory.toString());
                ledger.memory(session, answer.path("id").asText(), word);
            }
            pause(settings.pace());
        }
    }

    /** POSTs until a 2xx, alternating instances; returns the answer. Counts the time it kept failing. */
    private JsonNode postUntilAccepted(Session session, String path, String body) {
        long failingSince = -1;
        for (int attempt = 0; ; attempt++) {
            int instance =
                    1 + (attempt + ThreadLocalRandom.current().nextInt(settings.instances())) % settings.instances();
            long sent = System.nanoTime();
            Phase current = phase.get();
            try {
                HttpResponse<String> response = api.post(instance, session.tenant(), path, body);
                long now = System.nanoTime();
                if (response.statusCode() / 100 == 2) {
                    current.postMs.add((now - sent) / 1_000_000);
                    if (failingSince >= 0) {
                        current.postFailed((now - failingSince) / 1_000_000);
                    }
                    return Json.MAPPER.readTree(response.body());
                }
                if (response.statusCode() / 100 == 4 && response.statusCode() != 429) {
                    throw new IllegalStateException(
                            path + " refused: " + response.statusCode() + " " + response.body());
                }
                current.failed("post", instance, String.valueOf(response.statusCode()));
            } catch (IOException e) {
                // Refused or timed out: ambiguous, sent again with the same ids.
                current.failed("post", instance, e.getClass().getSimpleName());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            if (failingSince < 0) {
                failingSince = sent;
            }
            pause(Duration.ofMillis(200));
        }
    }

    /**
     * Reads a session's context from a random instance, then the others while it fails, timing how long
     * no instance answered and keeping the largest window.
     */
    private void read(Session session, AtomicBoolean stop) {
        long failingSince = -1;
        while (!stop.get()) {
            int first = ThreadLocalRandom.current().nextInt(settings.instances());
            long asked = System.nanoTime();
            Phase current = phase.get();
            // As a client behind a load balancer: an instance that fails the read hands it to the next one.
            JsonNode context = null;
            for (int tried = 0; context == null && tried < settings.instances(); tried++) {
                int instance = 1 + (first + tried) % settings.instances();
                context = api.context(
                        instance, session.tenant(), session.id(), false, why -> current.failed("read", instance, why));
            }
            long now = System.nanoTime();
            if (context == null) {
                failingSince = failingSince < 0 ? asked : failingSince;
                current.readFailed((now - failingSince) / 1_000_000);
            } else {
                failingSince = -1;
                ledger.served(session, context.path("tokens").path("total").asLong());
            }
            pause(Duration.ofMillis(500));
        }
    }

    /** After the cluster is whole again: how long until every session's context has answered once. */
    private long untilEveryContextAnswers() {
        long whole = System.nanoTime();
        Set<String> waiting =
                ledger.sessions().stream().map(Session::key).collect(Collectors.toCollection(HashSet::new));
        long deadline = whole + Duration.ofMinutes(5).toNanos();
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            for (Session session : ledger.sessions()) {
                if (waiting.contains(session.key())
                        && api.context(
                                        1 + ThreadLocalRandom.current().nextInt(settings.instances()),
                                        session.tenant(),
                                        session.id(),
                                        false)
                                != null) {
                    waiting.remove(session.key());
                }
            }
        }
        return (System.nanoTime() - whole) / 1_000_000;
    }

    private boolean settleAndCheck(int faults) throws Exception {
        long deadline = System.nanoTime() + settings.settleTimeout().toNanos();
        Tally tally;
        while (true) {
            tally = ledger.check(api, cluster.clientSettings("admin"), dir.resolve("workspace"));
            if (tally.violations().isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            pause(Duration.ofSeconds(5));
        }
        long unavailableMaxMs =
                phases.stream().mapToLong(p -> p.unavailableAfterWholeMs).max().orElse(0);
        out.printf(
                "accepted %d messages (%d archived, %d of them in a dead letter instead of a diary) and %d memories;"
                        + " largest served window %d of %d tokens%n",
                tally.accepted(),
                tally.archived(),
                tally.deadLettered(),
                ledger.memoryCount(),
                tally.windowMax(),
                MAX_INPUT);
        if (tally.violations().isEmpty()) {
            out.println(
                    "invariant held: every accepted message exactly once and in order, dialog files equal the topic,"
                            + " the archive in diaries or dead letters, every memory listed and found, windows bounded");
        } else {
            out.println("invariant FAILED:");
            tally.violations().stream().limit(50).forEach(v -> out.println("  " + v));
        }
        ObjectNode line = Json.MAPPER.createObjectNode();
        line.put("brokers", LocalCluster.NODES);
        line.put("instances", settings.instances());
        line.put("faults", faults);
        line.put("accepted", tally.accepted());
        line.put("lost", tally.lost());
        line.put("duplicated", tally.duplicated());
        line.put("out_of_order", tally.outOfOrder());
        line.put("unavailable_max_s", Math.round(unavailableMaxMs / 100.0) / 10.0);
        line.put("memories", ledger.memoryCount());
        line.put("memories_missing", tally.memoriesMissing());
        line.put("undiarised", tally.undiarised());
        line.put("dialog_file_mismatches", tally.fileMismatches());
        line.put("window_max", tally.windowMax());
        line.put("post_p99_quiet_ms", phases.get(0).p99());
        out.println(line);
        return tally.violations().isEmpty();
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
