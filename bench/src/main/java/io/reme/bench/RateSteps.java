package io.reme.bench;

import io.reme.app.AppProcess;
import io.reme.app.ConversationGenerator;
import io.reme.json.Json;
import io.reme.topic.Topics;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
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
 * The open-loop steps of {@code bench sessions --steps}: messages written at a steady rate, a share of the maximum
 * the full-speed load measured, while one client reads contexts beside them. Open loop: the producer keeps its
 * schedule whatever the instance does (it never waits for an answer), so a slow instance shows as lag, not as a
 * lower rate; the bench reports how far the producer itself fell behind its schedule (its own send buffer full).
 * Each step writes new sessions ({@code r<step>-<n>}, the load's shape), reads contexts of the load's sessions,
 * measures for {@code seconds}, prints one JSON line, then waits for the instance to consume what is left.
 */
final class RateSteps {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    /** New sessions generated together and interleaved, as the load does. */
    private static final int BLOCK = 1_000;
    /** A client asking a hundred times a second: a p999 over a minute's step holds several reads. */
    private static final long READ_PAUSE_MS = 10;

    /** One step's measures; latencies in nanoseconds, sorted. */
    record Measured(
            double share,
            double rate,
            long sent,
            double seconds,
            long behindMaxMs,
            long lagEnd,
            long[] reads,
            long[] server,
            long[] waits,
            int failed,
            double instanceCpuS,
            double benchCpuS) {}

    /**
     * The steps a run makes: {@code shares} of the maximum rate the full-speed load measured, or
     * one step at {@code rate} messages a second when it is above 0; each {@code length} long. None: no steps.
     */
    public record Plan(List<Double> shares, double rate, Duration length) {
        public static final Plan NONE = new Plan(List.of(), 0, Duration.ofSeconds(60));

        public Plan {
            shares = List.copyOf(shares);
            for (double share : shares) {
                if (!(share > 0 && share <= 2)) {
                    throw new IllegalArgumentException(
                            "--steps takes shares of the maximum rate in (0, 2], got " + share);
                }
            }
            if (rate < 0 || length.isNegative() || length.isZero()) {
                throw new IllegalArgumentException("--rate must be >= 0 and --step-seconds >= 1");
            }
        }

        boolean any() {
            return rate > 0 || !shares.isEmpty();
        }
    }

    private final String bootstrap;
    private final String applicationId;
    private final int partitions;
    private final int messagesPerSession;
    private final int tenants;
    private final int readableSessions;
    private final IntFunction<SessionsBenchmark.Answer> reader;
    private final PrintStream out;

    RateSteps(
            String bootstrap,
            String applicationId,
            int partitions,
            int messagesPerSession,
            int tenants,
            int readableSessions,
            IntFunction<SessionsBenchmark.Answer> reader,
            PrintStream out) {
        this.bootstrap = bootstrap;
        this.applicationId = applicationId;
        this.partitions = partitions;
        this.messagesPerSession = messagesPerSession;
        this.tenants = tenants;
        this.readableSessions = readableSessions;
        this.reader = reader;
        this.out = out;
    }

    /** Every step of {@code plan}, each followed by a drain: one JSON line each. */
    void runAll(Plan plan, double maxRate, AppProcess app) throws Exception {
        List<Double> rates = new ArrayList<>();
        if (plan.rate() > 0) {
            rates.add(plan.rate());
        } else {
            plan.shares().forEach(share -> rates.add(share * maxRate));
        }
        for (int i = 0; i < rates.size(); i++) {
            double rate = rates.get(i);
            out.printf(
                    "step %d: %,.0f messages/s (%.2f of %,.0f) for %d s%n",
                    i + 1, rate, rate / maxRate, maxRate, plan.length().toSeconds());
            Measured measured = run(i + 1, Math.round(rate / maxRate * 1000) / 1000.0, rate, plan.length(), app);
            out.println(Json.MAPPER.writeValueAsString(line(measured, maxRate)));
            long left = drain(Duration.ofMinutes(10), app);
            if (left > 0) {
                out.printf("  %,d messages still unconsumed 10 min after the step%n", left);
            }
        }
    }

    /** Runs one step at {@code rate} messages a second for {@code seconds}; {@code step} names its sessions. */
    Measured run(int step, double share, double rate, Duration length, AppProcess app) throws Exception {
        List<Long> latencies = new ArrayList<>();
        List<Long> serverTimes = new ArrayList<>();
        List<Long> waitTimes = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        int[] failed = new int[1];
        Thread readerThread = Thread.ofPlatform().name("context-reader-step").start(() -> {
            Random random = new Random(17 + step);
            while (running.get()) {
                long started = System.nanoTime();
                SessionsBenchmark.Answer answer = reader.apply(random.nextInt(readableSessions));
                long nanos = System.nanoTime() - started;
                if (answer.status() == 200) {
                    latencies.add(nanos);
                    if (answer.serverNanos() >= 0) {
                        serverTimes.add(answer.serverNanos());
                        waitTimes.add(answer.waitNanos());
                    }
                } else {
                    failed[0]++;
                }
                SessionsBenchmark.pause(READ_PAUSE_MS);
            }
        });
        ConversationGenerator generator = new ConversationGenerator(1000 + step, 25, 150_000);
        Deque<ConversationGenerator.Envelope> pending = new ArrayDeque<>();
        int nextSession = refill(generator, pending, step, 0);
        long sent = 0;
        long behindMaxNanos = 0;
        double seconds;
        double instanceCpu;
        double benchCpu;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerProps(), new ByteArraySerializer(), new ByteArraySerializer())) {
            // The topic's metadata before the clock starts: a first send would wait for it, a delay of the bench's.
            producer.partitionsFor(TOPICS.messages());
            instanceCpu = cpuSeconds(ProcessHandle.of(app.pid()).orElseThrow());
            benchCpu = cpuSeconds(ProcessHandle.current());
            long started = System.nanoTime();
            long end = started + length.toNanos();
            long now;
            while ((now = System.nanoTime()) < end) {
                long due = (long) ((now - started) / 1e9 * rate);
                if (due > sent) {
                    // How long ago the oldest unsent message was due: the producer's own delay, not the instance's.
                    behindMaxNanos = Math.max(behindMaxNanos, now - started - (long) (sent / rate * 1e9));
                }
                while (sent < due) {
                    if (pending.isEmpty()) {
                        nextSession = refill(generator, pending, step, nextSession);
                    }
                    ConversationGenerator.Envelope envelope = pending.poll();
                    producer.send(new ProducerRecord<>(
                            TOPICS.messages(), envelope.key().getBytes(StandardCharsets.UTF_8), envelope.value()));
                    sent++;
                }
                app.requireAlive();
                Thread.sleep(1);
            }
            producer.flush();
            seconds = (System.nanoTime() - started) / 1e9;
            instanceCpu = cpuSeconds(ProcessHandle.of(app.pid()).orElseThrow()) - instanceCpu;
            benchCpu = cpuSeconds(ProcessHandle.current()) - benchCpu;
        } finally {
            running.set(false);
            readerThread.join();
        }
        long lagEnd = lag();
        return new Measured(
                share,
                rate,
                sent,
                seconds,
                behindMaxNanos / 1_000_000,
                lagEnd,
                sorted(latencies),
                sorted(serverTimes),
                sorted(waitTimes),
                failed[0],
                instanceCpu,
                benchCpu);
    }

    /** The next block of new sessions' messages, interleaved; returns the next session number. */
    private int refill(
            ConversationGenerator generator, Deque<ConversationGenerator.Envelope> pending, int step, int first) {
        Instant start = Instant.now().minusSeconds(messagesPerSession);
        List<List<ConversationGenerator.Envelope>> block = new ArrayList<>();
        for (int s = first; s < first + BLOCK; s++) {
            block.add(generator.session(
                    "tenant" + (s % tenants), "r" + step + "-" + s, "u" + (s % 97), messagesPerSession, start));
        }
        for (int m = 0; m < messagesPerSession; m++) {
            for (List<ConversationGenerator.Envelope> session : block) {
                pending.add(session.get(m));
            }
        }
        return first + BLOCK;
    }

    /** Until the instance has consumed everything written, or {@code limit} passed; the lag left. */
    long drain(Duration limit, AppProcess app) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        long lag;
        while ((lag = lag()) > 0 && System.nanoTime() < deadline) {
            app.requireAlive();
            Thread.sleep(500);
        }
        return lag;
    }

    /** Messages of {@code messages} the application's group has not committed yet. */
    long lag() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetSpec> ends = new LinkedHashMap<>();
            for (int p = 0; p < partitions; p++) {
                ends.put(new TopicPartition(TOPICS.messages(), p), OffsetSpec.latest());
            }
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(applicationId)
                    .partitionsToOffsetAndMetadata()
                    .get();
            long lag = 0;
            for (var e : admin.listOffsets(ends).all().get().entrySet()) {
                OffsetAndMetadata at = committed.get(e.getKey());
                lag += Math.max(0, e.getValue().offset() - (at == null ? 0 : at.offset()));
            }
            return lag;
        }
    }

    private Properties producerProps() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // A platform's producer at a steady rate: small batches sent soon, not the load's large ones.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * 1024 * 1024);
        return props;
    }

    private static double cpuSeconds(ProcessHandle process) {
        return process.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }

    private static long[] sorted(List<Long> nanos) {
        return nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** The step's JSON line. */
    static Map<String, Object> line(Measured m, double maxRate) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("share", m.share());
        line.put("rate_per_s", Math.round(m.rate()));
        line.put("max_rate_per_s", Math.round(maxRate));
        line.put("sent", m.sent());
        line.put("achieved_per_s", Math.round(m.sent() / m.seconds()));
        line.put("seconds", Math.round(m.seconds() * 10) / 10.0);
        line.put("producer_behind_max_ms", m.behindMaxMs());
        line.put("lag_end", m.lagEnd());
        line.put("reads", m.reads().length);
        line.put("reads_failed", m.failed());
        line.put("context_server_p50_ms", SessionsBenchmark.percentileMs(m.server(), 0.50));
        line.put("context_server_p99_ms", SessionsBenchmark.percentileMs(m.server(), 0.99));
        line.put("context_server_p999_ms", SessionsBenchmark.percentileMs(m.server(), 0.999));
        line.put("context_p50_ms", SessionsBenchmark.percentileMs(m.reads(), 0.50));
        line.put("context_p99_ms", SessionsBenchmark.percentileMs(m.reads(), 0.99));
        line.put("context_p999_ms", SessionsBenchmark.percentileMs(m.reads(), 0.999));
        line.put("context_server_wait_p99_ms", SessionsBenchmark.percentileMs(m.waits(), 0.99));
        // The instance's CPU while it held the rate, and the bench's own (the broker, the producer, the reader).
        line.put("instance_cores", Math.round(m.instanceCpuS() / m.seconds() * 100) / 100.0);
        line.put("instance_cpu_us_per_msg", Math.round(m.instanceCpuS() * 1e6 / m.sent()));
        line.put("bench_jvm_cpu_us_per_msg", Math.round(m.benchCpuS() * 1e6 / m.sent()));
        return line;
    }
}
