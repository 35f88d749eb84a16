package io.reme.bench;

import io.reme.admin.TopicProvisioner;
import io.reme.app.ConversationGenerator;
import io.reme.broker.EmbeddedKafka;
import io.reme.config.AppConfig;
import io.reme.dlq.InvalidInputException;
import io.reme.message.MessageParser;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.topology.RemeTopology;
import io.reme.topology.StreamsSettings;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * {@code bench ingest}: messages/s through the session processor (exactly-once, RocksDB) against a
 * pass-through topology over the same input on the same embedded broker, for one or more shapes
 * of sessions x messages. The input is written first; throughput is measured from the first
 * committed progress until the group's committed offsets reach the end of the input, over the
 * records processed in between, so start-up is not counted.
 */
public final class IngestBenchmark {
    private final Path dataDir;
    private final int partitions;
    private final int threads;
    private final int commitIntervalMs;
    private final PrintStream out;

    public IngestBenchmark(Path dataDir, int partitions, int threads, int commitIntervalMs, PrintStream out) {
        this.dataDir = dataDir;
        this.partitions = partitions;
        this.threads = threads;
        this.commitIntervalMs = commitIntervalMs;
        this.out = out;
    }

    /** One measured shape: how many sessions and messages per session. */
    public record Shape(int sessions, int messagesPerSession) {
        int total() {
            return sessions * messagesPerSession;
        }
    }

    /**
     * The outcome of one shape. {@code parseCountRate} is a stateless topology that only parses each
     * envelope and counts its tokens: the CPU floor of the session processor without any state.
     */
    public record Result(
            Shape shape, double sessionRate, double passThroughRate, double parseCountRate, long inputBytes) {
        double ratio() {
            return sessionRate / passThroughRate;
        }

        /** The session processor against the stateless parse+count floor. */
        double sessionToParse() {
            return sessionRate / parseCountRate;
        }
    }

    /**
     * Runs a warm-up shape first (reported, not returned): the tokenizer's regular expressions and
     * the JSON paths take seconds of JIT compilation on two cores, which would otherwise be billed to
     * whichever topology runs first.
     */
    public List<Result> run(Shape warmUp, List<Shape> shapes) throws Exception {
        List<Shape> all = new ArrayList<>();
        all.add(warmUp);
        all.addAll(shapes);
        List<Result> results = run(all);
        return results.subList(1, results.size());
    }

    private List<Result> run(List<Shape> shapes) throws Exception {
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
                        index == 0 ? "warm-up" : "shape",
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
                double passRate = measure(
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
                Topology parseCount = new Topology();
                parseCount.addSource(
                        "bench-source", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.messages());
                parseCount.addProcessor(
                        "bench-parse-count",
                        () -> new ParseAndCount(tokens, config.sessionSettings().maxMessageBytes()),
                        "bench-source");
                parseCount.addSink(
                        "bench-sink",
                        passThroughOut,
                        new ByteArraySerializer(),
                        new ByteArraySerializer(),
                        "bench-parse-count");
                double parseCountRate = measure(
                        admin,
                        broker.bootstrapServers(),
                        parseCount,
                        "bench-parse-" + index,
                        topics.messages(),
                        shape.total());
                Topology session = RemeTopology.build(topics, config.sessionSettings(), tokens);
                double sessionRate = measure(
                        admin,
                        broker.bootstrapServers(),
                        session,
                        "bench-session-" + index,
                        topics.messages(),
                        shape.total());
                Result result = new Result(shape, sessionRate, passRate, parseCountRate, bytes);
                out.printf(
                        "  pass-through %,.0f msg/s   parse+count %,.0f msg/s   session processor %,.0f msg/s   "
                                + "ratio %.2f   session/parse %.2f%n",
                        passRate, parseCountRate, sessionRate, result.ratio(), result.sessionToParse());
                results.add(result);
                index++;
            }
        }
        return results;
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
     * Runs one topology over the input and returns its rate. It also prints the CPU time spent per
     * record by the topology's own threads (stream threads and their clients) and by the whole
     * process (broker included): exact thread clocks, so a loaded machine shows as a lower rate
     * but not as more CPU per record.
     */
    private double measure(
            Admin admin, String bootstrap, Topology topology, String applicationId, String inputTopic, int total)
            throws Exception {
        AppConfig config = AppConfig.of(Map.of(
                AppConfig.DATA_DIR.name(),
                dataDir.resolve(applicationId).toString(),
                AppConfig.APPLICATION_ID.name(),
                applicationId,
                AppConfig.STREAM_THREADS.name(),
                Integer.toString(threads),
                AppConfig.COMMIT_INTERVAL_MS.name(),
                Integer.toString(commitIntervalMs)));
        Properties props = StreamsSettings.properties(config, bootstrap, "127.0.0.1:1");
        Map<TopicPartition, Long> ends = endOffsets(admin, inputTopic);
        try (KafkaStreams streams = new KafkaStreams(topology, props)) {
            // Not waiting for RUNNING: with two threads the first one processes while the group is
            // still rebalancing for the second, and a small input can be done before RUNNING.
            streams.start();
            // Measure from the first committed progress to the end: the records processed before that
            // (while the other threads were still starting) are left out of both count and time.
            long firstNs = 0;
            long firstDone = 0;
            long firstThreadCpu = 0;
            long firstProcessCpu = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            long done;
            while ((done = processed(admin, applicationId, ends)) < total) {
                if (firstNs == 0 && done > 0) {
                    firstNs = System.nanoTime();
                    firstDone = done;
                    firstThreadCpu = threadCpuNs(applicationId);
                    firstProcessCpu = processCpuNs();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(applicationId + " did not finish within 30 minutes");
                }
                Thread.sleep(20);
            }
            long endNs = System.nanoTime();
            long threadCpu = threadCpuNs(applicationId) - firstThreadCpu;
            long processCpu = processCpuNs() - firstProcessCpu;
            streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
            if (firstNs == 0 || total - firstDone < total / 2) {
                throw new IllegalStateException(applicationId + ": too little was measured (" + (total - firstDone)
                        + " of " + total + " records after the first commit); use a larger shape");
            }
            long measured = total - firstDone;
            out.printf(
                    "    %s: CPU per message %.0f µs in its own threads, %.0f µs in the process%n",
                    applicationId, threadCpu / 1e3 / measured, processCpu / 1e3 / measured);
            return measured / ((endNs - firstNs) / 1e9);
        }
    }

    /** Parses an envelope and counts its tokens, forwarding the count: no stores, no truncation. */
    private static final class ParseAndCount implements Processor<byte[], byte[], byte[], byte[]> {
        private final TokenCounter tokens;
        private final MessageParser parser;
        private ProcessorContext<byte[], byte[]> context;

        ParseAndCount(TokenCounter tokens, int maxMessageBytes) {
            this.tokens = tokens;
            this.parser = new MessageParser(maxMessageBytes);
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            try {
                int count = tokens.count(parser.parse(record.key(), record.value(), record.timestamp(), "bench"));
                context.forward(record.withValue(Integer.toString(count).getBytes(StandardCharsets.UTF_8)));
            } catch (InvalidInputException e) {
                throw new IllegalStateException("the generator produced an invalid message", e);
            }
        }
    }

    private static long threadCpuNs(String applicationId) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains(applicationId + "-")) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
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
