package io.reme.bench;

import io.reme.admin.TopicProvisioner;
import io.reme.app.ConversationGenerator;
import io.reme.config.AppConfig;
import io.reme.dlq.InvalidInputException;
import io.reme.embedded.EmbeddedKafka;
import io.reme.message.MessageParser;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.topology.RemeTopology;
import io.reme.topology.StreamsSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * {@code bench ingest}: messages/s through the session processor (exactly-once, RocksDB) against a
 * pass-through topology over the same input on the same embedded broker, for one or more shapes
 * of sessions x messages. The input is written first; throughput is measured from the first
 * committed progress until the group's committed offsets reach the end of the input, over the
 * records processed in between, so start-up is not counted.
 */
public final class IngestBenchmark {
    private static final String KEPT_STORE = "bench-kept";
    private static final int KEPT_BYTES = 4096;

    private final Path dataDir;
    private final int partitions;
    private final int threads;
    private final int commitIntervalMs;
    private final Map<String, String> kafka;
    private final PrintStream out;

    public IngestBenchmark(
            Path dataDir,
            int partitions,
            int threads,
            int commitIntervalMs,
            Map<String, String> kafka,
            PrintStream out) {
        this.dataDir = dataDir;
        this.partitions = partitions;
        this.threads = threads;
        this.commitIntervalMs = commitIntervalMs;
        this.kafka = Map.copyOf(kafka);
        this.out = out;
    }

    /** One measured shape: how many sessions and messages per session. */
    public record Shape(int sessions, int messagesPerSession) {
        int total() {
            return sessions * messagesPerSession;
        }
    }

    /**
     * One topology's run over a shape: its rate, and the CPU its own threads (stream threads and their
     * clients) spent per message over the whole measured run and over its steady part.
     */
    public record Measured(double rate, double ownCpuUs, double steadyOwnCpuUs) {}

    /**
     * The outcome of one shape. {@code parseCount} is a stateless topology that only parses each
     * envelope and counts its tokens: the CPU floor of the session processor without any state;
     * {@code parseKeep} the same with one store put per message.
     */
    public record Result(Shape shape, Measured session, Measured passThrough, Measured parseCount, Measured parseKeep) {
        double ratio() {
            return session.rate() / passThrough.rate();
        }
    }

    /**
     * Runs a warm-up shape first, {@code warmUpRounds} times (reported, not returned): the embedded
     * broker, the clients, Streams and the session code share one JVM, and its JIT compiles for tens
     * of seconds of CPU on two cores, which would otherwise be billed to the measured topologies (the
     * session processor most: it has the most code). The "JIT" figure of each run's breakdown shows
     * what is left.
     */
    public List<Result> run(Shape warmUp, int warmUpRounds, List<Shape> shapes) throws Exception {
        List<Shape> all = new ArrayList<>();
        for (int round = 0; round < warmUpRounds; round++) {
            all.add(warmUp);
        }
        all.addAll(shapes);
        List<Result> results = run(all, warmUpRounds);
        return results.subList(warmUpRounds, results.size());
    }

    private List<Result> run(List<Shape> shapes, int warmUpRounds) throws Exception {
        List<Result> results = new ArrayList<>();
        try (EmbeddedKafka broker = EmbeddedKafka.start(dataDir.resolve("broker"));
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            int index = 0;
            for (Shape shape : shapes) {
                Topics topics = new Topics("bench" + index + ".");
                TopicProvisioner.ensure(
                        admin,
                        topics,
                        topics.specs(partitions, 4 * 1024 * 1024, 16 * 1024 * 1024, Duration.ofDays(3)),
                        1);
                String passThroughOut = topics.prefix() + "passthrough.out";
                admin.createTopics(List.of(
                                new org.apache.kafka.clients.admin.NewTopic(passThroughOut, partitions, (short) 1)))
                        .all()
                        .get();
                long bytes = produce(broker.bootstrapServers(), topics.messages(), shape);
                out.printf(
                        "%s %d sessions x %d messages: %d messages, %.1f MB produced%n",
                        index < warmUpRounds ? "warm-up" : "shape",
                        shape.sessions(),
                        shape.messagesPerSession(),
                        shape.total(),
                        bytes / 1e6);
                Topology passThrough = new Topology();
                passThrough.addSource(
                        "bench-source", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.messages());
                passThrough.addSink(
                        "bench-sink",
                        passThroughOut,
                        new ByteArraySerializer(),
                        new ByteArraySerializer(),
                        "bench-source");
                Measured pass = measure(
                        admin,
                        broker.bootstrapServers(),
                        passThrough,
                        "bench-pass-" + index,
                        topics.messages(),
                        shape.total());
                AppConfig config = AppConfig.of(Map.of(
                        AppConfig.DATA_DIR.name(),
                        dataDir.resolve("app" + index).toString()));
                TokenCounter tokens = TokenCounter.forEncoding(
                        config.get(AppConfig.TOKEN_ENCODING), config.get(AppConfig.IMAGE_TOKENS));
                int maxMessageBytes = config.sessionSettings().input().maxMessageBytes();
                Measured parse = measure(
                        admin,
                        broker.bootstrapServers(),
                        parseTopology(topics, passThroughOut, tokens, maxMessageBytes, false),
                        "bench-parse-" + index,
                        topics.messages(),
                        shape.total());
                Measured keep = measure(
                        admin,
                        broker.bootstrapServers(),
                        parseTopology(topics, passThroughOut, tokens, maxMessageBytes, true),
                        "bench-keep-" + index,
                        topics.messages(),
                        shape.total());
                Topology session = RemeTopology.build(topics, config.sessionSettings(), tokens);
                Measured sessionRun = measure(
                        admin,
                        broker.bootstrapServers(),
                        session,
                        "bench-session-" + index,
                        topics.messages(),
                        shape.total());
                Result result = new Result(shape, sessionRun, pass, parse, keep);
                out.printf(
                        "  pass-through %,.0f msg/s   parse+count %,.0f msg/s   parse+count+keep %,.0f msg/s   "
                                + "session processor %,.0f msg/s   ratio %.2f%n",
                        pass.rate(), parse.rate(), keep.rate(), sessionRun.rate(), result.ratio());
                out.printf(
                        "  own CPU per message over parse+count's: session processor %.2f (steady %.2f),"
                                + " parse+count+keep %.2f (steady %.2f)%n",
                        sessionRun.ownCpuUs() / parse.ownCpuUs(),
                        sessionRun.steadyOwnCpuUs() / parse.steadyOwnCpuUs(),
                        keep.ownCpuUs() / parse.ownCpuUs(),
                        keep.steadyOwnCpuUs() / parse.steadyOwnCpuUs());
                results.add(result);
                index++;
            }
        }
        return results;
    }

    /**
     * Parse+count (the floor of the session processor without state) or, with {@code keep},
     * parse+count+keep (the floor of keeping each message): {@link ParseAndCount} between the input and
     * {@code sink}.
     */
    private static Topology parseTopology(
            Topics topics, String sink, TokenCounter tokens, int maxMessageBytes, boolean keep) {
        Topology topology = new Topology();
        topology.addSource("bench-source", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.messages());
        topology.addProcessor(
                "bench-parse-count", () -> new ParseAndCount(tokens, maxMessageBytes, keep), "bench-source");
        if (keep) {
            topology.addStateStore(
                    Stores.keyValueStoreBuilder(
                                    Stores.persistentKeyValueStore(KEPT_STORE), Serdes.ByteArray(), Serdes.ByteArray())
                            .withCachingEnabled(),
                    "bench-parse-count");
        }
        topology.addSink("bench-sink", sink, new ByteArraySerializer(), new ByteArraySerializer(), "bench-parse-count");
        return topology;
    }

    private long produce(String bootstrap, String topic, Shape shape) throws Exception {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                512 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                "lz4",
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                8 * 1024 * 1024,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                1);
        ConversationGenerator generator = new ConversationGenerator(42, 25, 150_000);
        List<List<ConversationGenerator.Envelope>> sessions = new ArrayList<>();
        Instant start = Instant.parse("2026-11-30T09:00:00Z");
        for (int s = 0; s < shape.sessions(); s++) {
            sessions.add(generator.session("bench", "s" + s, "u" + (s % 7), shape.messagesPerSession(), start));
        }
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            // Interleave sessions, as concurrent conversations arrive.
            for (int m = 0; m < shape.messagesPerSession(); m++) {
                for (List<ConversationGenerator.Envelope> session : sessions) {
                    ConversationGenerator.Envelope envelope = session.get(m);
                    bytes += envelope.value().length;
                    producer.send(new ProducerRecord<>(
                            topic, envelope.key().getBytes(StandardCharsets.UTF_8), envelope.value()));
                }
            }
            producer.flush();
        }
        return bytes;
    }

    /**
     * Runs one topology over the input and returns its rate and the CPU time spent per record by its own
     * threads (stream threads and their clients), which it prints with the whole process's (broker
     * included): exact thread clocks, so a loaded machine shows as a lower rate but not as more CPU per
     * record.
     */
    private Measured measure(
            Admin admin, String bootstrap, Topology topology, String applicationId, String inputTopic, int total)
            throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                AppConfig.DATA_DIR.name(),
                dataDir.resolve(applicationId).toString(),
                AppConfig.APPLICATION_ID.name(),
                applicationId,
                AppConfig.STREAM_THREADS.name(),
                Integer.toString(threads),
                AppConfig.COMMIT_INTERVAL_MS.name(),
                Integer.toString(commitIntervalMs)));
        // kafka.* entries are read from the config file only; as options they would be dropped unread.
        Map<String, String> file = new HashMap<>();
        kafka.forEach((key, value) -> file.put("kafka." + key, value));
        AppConfig config = AppConfig.load(file, Map.of(), settings);
        Properties props = StreamsSettings.properties(config, bootstrap, "127.0.0.1:1");
        Map<TopicPartition, Long> ends = endOffsets(admin, inputTopic);
        Map<String, Long> sizesBefore = topicBytes(admin);
        try (KafkaStreams streams = new KafkaStreams(topology, props)) {
            // Not waiting for RUNNING: with two threads the first one processes while the group is
            // still rebalancing for the second, and a small input can be done before RUNNING.
            streams.start();
            // Measure from the first committed progress to the end: the records processed before that
            // (while the other threads were still starting) are left out of both count and time.
            long firstNs = 0;
            long firstDone = 0;
            long firstProcessCpu = 0;
            Map<Long, ThreadCpu> firstByThread = Map.of();
            Map<String, Long> firstNative = Map.of();
            // The steady part: from the first commit past a fifth of the input, when every task has
            // started and restored, so a task's start-up (its stores opened, their restore awaited) is
            // not billed to its messages as it is in the whole run's figure.
            long steadyDone = -1;
            long steadyOwnCpu = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            long done;
            while ((done = processed(admin, applicationId, ends)) < total) {
                if (firstNs == 0 && done > 0) {
                    firstNs = System.nanoTime();
                    firstDone = done;
                    firstProcessCpu = processCpuNs();
                    firstByThread = cpuByThread();
                    firstNative = nativeCpuNs();
                }
                if (steadyDone < 0 && done >= total / 5) {
                    steadyDone = done;
                    steadyOwnCpu = ownCpuNs(cpuByThread(), applicationId);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(applicationId + " did not finish within 30 minutes");
                }
                Thread.sleep(20);
            }
            long endNs = System.nanoTime();
            long processCpu = processCpuNs() - firstProcessCpu;
            Map<Long, ThreadCpu> lastByThread = cpuByThread();
            long lastOwnCpu = ownCpuNs(lastByThread, applicationId);
            long threadCpu = lastOwnCpu - ownCpuNs(firstByThread, applicationId);
            Map<String, Long> lastNative = nativeCpuNs();
            streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
            if (firstNs == 0 || total - firstDone < total / 10) {
                throw new IllegalStateException(applicationId + ": too little was measured (" + (total - firstDone)
                        + " of " + total + " records after the first commit); use a larger shape");
            }
            long measured = total - firstDone;
            if (measured < total / 2) {
                // The pass-through can copy most of a shape before its first commit: a rough figure, said so.
                out.printf(
                        "    %s: only %d of %d records came after the first commit: a rough figure%n",
                        applicationId, measured, total);
            }
            double ownPerMessage = threadCpu / 1e3 / measured;
            // A fifth of the input may be done before the first commit is seen (the pass-through): the
            // steady figure is then the whole run's.
            double steadyPerMessage = steadyDone > firstDone && total - steadyDone >= total / 2
                    ? (lastOwnCpu - steadyOwnCpu) / 1e3 / (total - steadyDone)
                    : ownPerMessage;
            out.printf(
                    "    %s: CPU per message %.0f µs in its own threads (%.0f µs in the steady part), %.0f µs in the"
                            + " process%n",
                    applicationId, ownPerMessage, steadyPerMessage, processCpu / 1e3 / measured);
            out.println(
                    "      " + breakdown(firstByThread, lastByThread, firstNative, lastNative, processCpu, measured));
            out.println("      " + written(sizesBefore, topicBytes(admin), total));
            return new Measured(measured / ((endNs - firstNs) / 1e9), ownPerMessage, steadyPerMessage);
        }
    }

    /**
     * Parses an envelope and counts its tokens, forwarding the count: no truncation, and no stores unless
     * {@code keep}, when the envelope's first 4 KB (about what the window keeps of a tool output once it
     * ages) is put into a store under its session and position: the least state a session processor can
     * have, with the cost of the store, its cache, its changelog and the commit's flush, and none of the
     * session processor's own logic.
     */
    private static final class ParseAndCount implements Processor<byte[], byte[], byte[], byte[]> {
        private final TokenCounter tokens;
        private final MessageParser parser;
        private final boolean keep;
        private ProcessorContext<byte[], byte[]> context;
        private KeyValueStore<byte[], byte[]> kept;

        ParseAndCount(TokenCounter tokens, int maxMessageBytes, boolean keep) {
            this.tokens = tokens;
            this.parser = new MessageParser(maxMessageBytes);
            this.keep = keep;
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
            this.kept = keep ? context.getStateStore(KEPT_STORE) : null;
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            try {
                int count = tokens.count(parser.parse(record.key(), record.value(), record.timestamp(), "bench"));
                if (keep) {
                    long offset = context.recordMetadata().orElseThrow().offset();
                    byte[] key = (new String(record.key(), StandardCharsets.UTF_8) + "/" + offset)
                            .getBytes(StandardCharsets.UTF_8);
                    kept.put(key, Arrays.copyOf(record.value(), Math.min(record.value().length, KEPT_BYTES)));
                }
                context.forward(record.withValue(Integer.toString(count).getBytes(StandardCharsets.UTF_8)));
            } catch (InvalidInputException e) {
                throw new IllegalStateException("the generator produced an invalid message", e);
            }
        }
    }

    /** The CPU time of the topology's own threads (stream threads and their clients) in a snapshot. */
    private static long ownCpuNs(Map<Long, ThreadCpu> snapshot, String applicationId) {
        return snapshot.values().stream()
                .filter(thread -> thread.name().contains(applicationId + "-"))
                .mapToLong(ThreadCpu::cpuNs)
                .sum();
    }

    /** A thread's name and CPU time at one instant. */
    private record ThreadCpu(String name, long cpuNs) {}

    private static Map<Long, ThreadCpu> cpuByThread() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, ThreadCpu> byId = new HashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) {
                byId.put(
                        info.getThreadId(),
                        new ThreadCpu(info.getThreadName(), Math.max(0, threads.getThreadCpuTime(info.getThreadId()))));
            }
        }
        return byId;
    }

    /**
     * Where the process's CPU went, per message, by thread kind (names with their numbers and the
     * application id left out): the broker's request handlers and network threads, the stream
     * threads, their producers; then GC, the JIT and RocksDB's native background threads, which no
     * Java thread accounts for.
     */
    private static String breakdown(
            Map<Long, ThreadCpu> first,
            Map<Long, ThreadCpu> last,
            Map<String, Long> nativeFirst,
            Map<String, Long> nativeLast,
            long processCpuNs,
            long measured) {
        Map<String, Long> byKind = new HashMap<>();
        long accounted = 0;
        for (Map.Entry<Long, ThreadCpu> entry : last.entrySet()) {
            ThreadCpu before = first.get(entry.getKey());
            long delta = entry.getValue().cpuNs() - (before == null ? 0 : before.cpuNs());
            accounted += delta;
            byKind.merge(threadKind(entry.getValue().name()), delta, Long::sum);
        }
        for (Map.Entry<String, Long> entry : nativeLast.entrySet()) {
            long delta = entry.getValue() - nativeFirst.getOrDefault(entry.getKey(), 0L);
            accounted += delta;
            byKind.put(entry.getKey(), delta);
        }
        byKind.put("the rest", processCpuNs - accounted);
        return "by thread kind, µs per message: "
                + byKind.entrySet().stream()
                        .filter(e -> e.getValue() / 1e3 / measured >= 5)
                        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .map(e -> String.format("%s %.0f", e.getKey(), e.getValue() / 1e3 / measured))
                        .collect(Collectors.joining(", "));
    }

    /**
     * CPU time of the threads no {@code ThreadMXBean} lists, by kind, from Linux's per-task clocks
     * (clock ticks of 10 ms: enough over a run of seconds); empty where {@code /proc} is missing.
     */
    private static Map<String, Long> nativeCpuNs() {
        Map<String, Long> byKind = new HashMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return byKind;
        }
        try (Stream<Path> list = Files.list(tasks)) {
            for (Path task : list.toList()) {
                try {
                    String kind =
                            nativeKind(Files.readString(task.resolve("comm")).strip());
                    if (kind == null) {
                        continue;
                    }
                    String stat = Files.readString(task.resolve("stat"));
                    // Fields after the parenthesised name: state is field 3, utime and stime 14 and 15.
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                    byKind.merge(kind, ticks * 10_000_000L, Long::sum);
                } catch (IOException | RuntimeException e) {
                    // The thread ended between the listing and the read: its time is lost either way.
                }
            }
        } catch (IOException e) {
            return byKind;
        }
        return byKind;
    }

    private static String nativeKind(String comm) {
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.equals("VM Thread")) {
            return "GC";
        }
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            return "JIT";
        }
        if (comm.startsWith("rocksdb")) {
            return "RocksDB background";
        }
        return null;
    }

    private static String threadKind(String name) {
        return name.replaceAll("bench-[a-z]+-[0-9]+-[0-9a-f-]{36}-", "").replaceAll("[0-9]+", "#");
    }

    /** Each topic's bytes on the broker's disk (compressed as written), summed over its partitions. */
    private static Map<String, Long> topicBytes(Admin admin) throws ExecutionException, InterruptedException {
        Map<String, Long> bytes = new HashMap<>();
        List<Integer> brokers =
                admin.describeCluster().nodes().get().stream().map(Node::id).toList();
        admin.describeLogDirs(brokers).allDescriptions().get().values().stream()
                .flatMap(dirs -> dirs.values().stream())
                .flatMap(dir -> dir.replicaInfos().entrySet().stream())
                .forEach(replica ->
                        bytes.merge(replica.getKey().topic(), replica.getValue().size(), Long::sum));
        return bytes;
    }

    /**
     * What the topology wrote, per message of the whole run (start-up included), by topic: the bytes its
     * run added to each topic's log (the input was written before).
     */
    private static String written(Map<String, Long> before, Map<String, Long> after, long messages) {
        Map<String, Long> grown = new HashMap<>();
        after.forEach((topic, size) -> {
            long delta = size - before.getOrDefault(topic, 0L);
            if (delta > 0) {
                grown.put(topic, delta);
            }
        });
        long sum = grown.values().stream().mapToLong(Long::longValue).sum();
        return String.format("written to the broker: %.0f bytes per message", (double) sum / messages)
                + grown.entrySet().stream()
                        .filter(e -> e.getValue() >= sum / 100)
                        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .map(e -> String.format("%s %.0f", e.getKey(), (double) e.getValue() / messages))
                        .collect(Collectors.joining(", ", " (", ")"));
    }

    private static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic)
            throws ExecutionException, InterruptedException {
        int partitions = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get()
                .get(topic)
                .partitions()
                .size();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** Records of the input whose offsets the group has committed. */
    private static long processed(Admin admin, String group, Map<TopicPartition, Long> ends)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get();
        long done = 0;
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            OffsetAndMetadata offset = committed.get(end.getKey());
            done += Math.min(end.getValue(), offset == null ? 0 : offset.offset());
        }
        return done;
    }
}
