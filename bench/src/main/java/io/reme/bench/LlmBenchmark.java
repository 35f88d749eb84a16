package io.reme.bench;

import io.reme.admin.TopicProvisioner;
import io.reme.app.ConversationGenerator;
import io.reme.embedded.EmbeddedKafka;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.message.Message;
import io.reme.message.MessageParser;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.OpenAiLlmClient;
import io.reme.provider.OpenAiSettings;
import io.reme.provider.SummaryTask;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.worker.LlmWorkerPool;
import io.reme.worker.WorkerSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code bench llm}: requests/s of the LLM worker pool with the OpenAI client against a local
 * endpoint that answers every call after a fixed latency, for several concurrencies. Each run gets
 * its own topics, filled with COMPACT requests before the pool starts; it is timed from the first
 * provider call to the moment every result is acknowledged by Kafka, so start-up and group joining
 * are not counted. With calls dominated by the latency L, c workers should give about c / L requests/s.
 */
public final class LlmBenchmark {
    private static final int PARTITIONS = 6;
    private static final int SESSIONS = 48;
    private static final int MESSAGES_PER_REQUEST = 20;

    private final Path dataDir;
    private final int requests;
    private final Duration latency;
    private final PrintStream out;

    public LlmBenchmark(Path dataDir, int requests, Duration latency, PrintStream out) {
        if (requests < 1) {
            throw new IllegalArgumentException("requests must be >= 1");
        }
        this.dataDir = dataDir;
        this.requests = requests;
        this.latency = latency;
        this.out = out;
    }

    /** One concurrency's outcome; latencies are those of the provider calls, in milliseconds. */
    public record Run(int concurrency, int requests, long failed, double seconds, double p50Ms, double p99Ms) {
        public double throughput() {
            return requests / seconds;
        }
    }

    /** Runs a short warm-up (reported, not returned), then each concurrency in turn. */
    public List<Run> run(List<Integer> concurrencies) throws Exception {
        List<Run> runs = new ArrayList<>();
        TokenCounter tokens = TokenCounter.forEncoding("o200k_base", 1000);
        try (EmbeddedKafka broker = EmbeddedKafka.start(dataDir.resolve("broker"));
                LocalChatServer server = LocalChatServer.start(latency);
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            List<List<Message>> spans = spans();
            out.printf(
                    "bench llm: %d COMPACT requests per run (%d messages each), endpoint latency %d ms, "
                            + "%d partitions%n",
                    requests, MESSAGES_PER_REQUEST, latency.toMillis(), PARTITIONS);
            out.printf(
                    "%-12s %10s %12s %10s %10s %10s %8s%n",
                    "concurrency", "requests", "requests/s", "c/latency", "p50 ms", "p99 ms", "failed");
            int index = 0;
            print(
                    measure(broker, admin, server, tokens, spans, "warm-up", index++, 4, Math.min(requests, 24)),
                    "warm-up");
            for (int concurrency : concurrencies) {
                Run run = measure(
                        broker, admin, server, tokens, spans, "c" + concurrency, index++, concurrency, requests);
                print(run, Integer.toString(concurrency));
                runs.add(run);
            }
        }
        return runs;
    }

    private void print(Run run, String label) {
        double ideal = run.concurrency() * 1000.0 / latency.toMillis();
        out.printf(
                "%-12s %10d %12.2f %10.2f %10.0f %10.0f %8d%n",
                label, run.requests(), run.throughput(), ideal, run.p50Ms(), run.p99Ms(), run.failed());
    }

    private Run measure(
            EmbeddedKafka broker,
            Admin admin,
            LocalChatServer server,
            TokenCounter tokens,
            List<List<Message>> spans,
            String name,
            int index,
            int concurrency,
            int count)
            throws Exception {
        Topics topics = new Topics("llmbench" + index + ".");
        TopicProvisioner.ensure(
                admin, topics, topics.specs(PARTITIONS, 4 * 1024 * 1024, 16 * 1024 * 1024, Duration.ofDays(1)), 1);
        produce(broker.bootstrapServers(), topics.llmRequests(), spans, count);
        OpenAiSettings settings = OpenAiSettings.of(server.baseUrl(), "bench-key", LocalChatServer.MODEL)
                .withRequestTimeout(Duration.ofSeconds(60));
        WorkerSettings workerSettings = new WorkerSettings(
                concurrency,
                Duration.ofSeconds(60),
                3,
                Duration.ofMillis(100),
                Duration.ofSeconds(1),
                4000,
                1000,
                5,
                ZoneId.of("UTC"));
        TimedClient client = new TimedClient(new OpenAiLlmClient(settings));
        Map<String, Object> clientProps = new HashMap<>();
        clientProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        long end;
        long failed;
        try (LlmWorkerPool pool = LlmWorkerPool.start(
                new LlmWorkerPool.Setup.Builder(clientProps, topics, "llmbench-" + name, workerSettings, client, tokens)
                        .build())) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            while (pool.completed() + pool.failed() < count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + ": only " + (pool.completed() + pool.failed()) + " of "
                            + count + " requests answered within 30 minutes");
                }
                Thread.sleep(2);
            }
            end = System.nanoTime();
            failed = pool.failed();
        } finally {
            client.close();
        }
        long results = endOffsets(admin, topics.llmResults());
        if (results < count) {
            throw new IllegalStateException(
                    name + ": " + results + " results on " + topics.llmResults() + ", expected " + count);
        }
        double[] latencies = client.latenciesMs();
        Arrays.sort(latencies);
        return new Run(
                concurrency,
                count,
                failed,
                (end - client.firstStart()) / 1e9,
                percentile(latencies, 0.50),
                percentile(latencies, 0.99));
    }

    /** Spans of generated conversations to summarise, one session each (tenant {@code bench}). */
    private static List<List<Message>> spans() {
        ConversationGenerator generator = new ConversationGenerator(42, 0, 0);
        MessageParser parser = new MessageParser(16 * 1024 * 1024);
        Instant start = Instant.parse("2026-11-30T09:00:00Z");
        List<List<Message>> out = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            String session = "s" + s;
            List<Message> messages = new ArrayList<>();
            for (ConversationGenerator.Envelope envelope :
                    generator.session("bench", session, "u" + s % 7, MESSAGES_PER_REQUEST, start)) {
                messages.add(parser.parse(
                        envelope.key().getBytes(StandardCharsets.UTF_8),
                        envelope.value(),
                        start.toEpochMilli(),
                        envelope.id()));
            }
            out.add(messages);
        }
        return out;
    }

    private static void produce(String bootstrap, String topic, List<List<Message>> spans, int count)
            throws IOException {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                10,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                "zstd",
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                16 * 1024 * 1024);
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                List<Message> span = spans.get(i % spans.size());
                Message first = span.get(0);
                LlmRequest request = new LlmRequest(
                        UUID.randomUUID().toString(),
                        1,
                        LlmKind.COMPACT,
                        List.of(),
                        new LlmRequest.Dialog(
                                first.tenant(), first.session(), first.user(), 0, 0, span.size() - 1, span, "en"),
                        LlmRequest.Compaction.NONE,
                        0,
                        first.time());
                producer.send(new ProducerRecord<>(
                        topic, first.tenant() + "/" + first.session(), Json.MAPPER.writeValueAsBytes(request)));
            }
            producer.flush();
        }
    }

    private static long endOffsets(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get().values().stream()
                .mapToLong(o -> o.offset())
                .sum();
    }

    private static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Times every provider call of the client it wraps. */
    private static final class TimedClient implements LlmClient {
        private final LlmClient delegate;
        private final ConcurrentLinkedQueue<Long> latenciesNs = new ConcurrentLinkedQueue<>();
        private final AtomicLong firstStart = new AtomicLong(Long.MAX_VALUE);

        TimedClient(LlmClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public String id() {
            return delegate.id();
        }

        @Override
        public String summarize(SummaryTask task) throws LlmException {
            long start = System.nanoTime();
            firstStart.accumulateAndGet(start, Math::min);
            try {
                return delegate.summarize(task);
            } finally {
                latenciesNs.add(System.nanoTime() - start);
            }
        }

        @Override
        public String updateDiary(DiaryTask task, DocumentEditor editor) throws LlmException {
            throw new LlmException("the LLM benchmark sends no diary updates", false, null);
        }

        long firstStart() {
            return firstStart.get();
        }

        double[] latenciesMs() {
            return latenciesNs.stream().mapToDouble(ns -> ns / 1e6).toArray();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
