package io.reme.app;

import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.llm.RequestSecret;
import io.reme.llm.ResultSignature;
import io.reme.message.Message;
import io.reme.topic.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Plays the LLM worker in integration tests: reads {@code llm.requests} with read_committed (so it
 * only ever sees requests whose state change committed) and answers every COMPACT request on
 * {@code llm.results}, keyed like the request. An OK answer is a valid summary that names the
 * request and lists the IDs of the messages it covers; requests matching {@code failWhen} get a
 * FAILED answer instead. DIARY requests are only recorded. Everything seen and answered is kept for
 * the test's assertions.
 */
public final class TestWorker implements AutoCloseable {
    private static final RequestSecret SECRET = RequestSecret.of(TestApps.REQUEST_SECRET);
    private final Topics topics;
    private final Predicate<LlmRequest> failWhen;
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> producer;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch assigned = new CountDownLatch(1);
    private volatile CountDownLatch caughtUp;
    private volatile boolean running = true;

    /** Every request read, in order; duplicates are kept so the test can see them. */
    private final List<LlmRequest> requests = new CopyOnWriteArrayList<>();

    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final List<String> duplicates = new CopyOnWriteArrayList<>();
    /** COMPACT requests answered, by request ID, with the answer given. */
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    /** The payload of the last OK answer per session key. */
    private final Map<String, String> latestSummary = new ConcurrentHashMap<>();

    /** One answered COMPACT request and what it was told. */
    public record Answer(LlmRequest request, LlmResult result) {
        public boolean ok() {
            return result.status() == LlmStatus.OK;
        }
    }

    private TestWorker(String bootstrapServers, Topics topics, Predicate<LlmRequest> failWhen) {
        this.topics = topics;
        this.failWhen = failWhen;
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                        ConsumerConfig.GROUP_ID_CONFIG, "test-llm-worker",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 20 * 1024 * 1024),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.LINGER_MS_CONFIG,
                        0),
                new StringSerializer(),
                new ByteArraySerializer());
        thread = new Thread(this::run, "test-llm-worker");
        thread.setDaemon(true);
    }

    /** Starts a worker answering every COMPACT request OK. */
    public static TestWorker start(String bootstrapServers, Topics topics) {
        return start(bootstrapServers, topics, request -> false);
    }

    /** Starts a worker that answers COMPACT requests matching {@code failWhen} with FAILED, the rest OK. */
    public static TestWorker start(String bootstrapServers, Topics topics, Predicate<LlmRequest> failWhen) {
        TestWorker worker = new TestWorker(bootstrapServers, topics, failWhen);
        worker.consumer.subscribe(List.of(topics.llmRequests()), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                    worker.assigned.countDown();
                }
            }
        });
        worker.thread.start();
        return worker;
    }

    /**
     * The summary this worker writes for a request: every required section, the goal naming the
     * request and its span, the critical context listing the covered message ids.
     */
    public static String summaryFor(LlmRequest request) {
        StringBuilder text = new StringBuilder();
        text.append("## Goal\n")
                .append("Request ")
                .append(request.requestId())
                .append(" epoch ")
                .append(request.epoch())
                .append(" covers seq ")
                .append(request.dialog().fromSeq())
                .append('-')
                .append(request.dialog().toSeq())
                .append(".\n");
        text.append("## Constraints & Preferences\n(none)\n## Progress\n### Done\n- [x] summarised\n")
                .append("### In Progress\n(none)\n### Blocked\n(none)\n## Key Decisions\n(none)\n")
                .append("## Next Steps\n1. continue\n## Critical Context\n");
        for (Message message : request.dialog().messages()) {
            text.append("- ").append(message.id()).append('\n');
        }
        return text.toString();
    }

    private void run() {
        try {
            while (running) {
                boolean sent = false;
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, byte[]> record : records) {
                    LlmRequest request = Json.MAPPER.readValue(record.value(), LlmRequest.class);
                    requests.add(request);
                    if (!seen.add(request.kind() + "/" + request.requestId())) {
                        duplicates.add(request.kind() + "/" + request.requestId() + " at offset " + record.offset());
                    }
                    if (request.kind() != LlmKind.COMPACT) {
                        continue;
                    }
                    if (!record.key()
                            .equals(request.dialog().tenant() + "/"
                                    + request.dialog().session())) {
                        throw new IllegalStateException("request key " + record.key() + " does not match its session");
                    }
                    LlmResult result = failWhen.test(request)
                            ? LlmResult.failed(request, "test worker was told to fail this request", 3, Instant.now())
                            : LlmResult.ok(request, summaryFor(request), 1, Instant.now());
                    byte[] value = Json.MAPPER.writeValueAsBytes(result);
                    // Signed as the real workers sign: the session processor applies no unsigned result.
                    producer.send(new ProducerRecord<>(
                            topics.llmResults(),
                            null,
                            record.key(),
                            value,
                            List.of(ResultSignature.header(
                                    SECRET, record.key().getBytes(StandardCharsets.UTF_8), value))));
                    answers.put(request.requestId(), new Answer(request, result));
                    if (result.status() == LlmStatus.OK) {
                        latestSummary.put(record.key(), result.payload());
                    }
                    sent = true;
                }
                if (sent) {
                    producer.flush();
                }
                CountDownLatch waiting = caughtUp;
                if (waiting != null && records.isEmpty() && isCaughtUp()) {
                    caughtUp = null;
                    waiting.countDown();
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure.set(e);
            }
        } catch (IOException | RuntimeException e) {
            failure.set(e);
        }
    }

    /** True if every assigned partition has been read up to its last stable offset. */
    private boolean isCaughtUp() {
        Set<TopicPartition> assignment = consumer.assignment();
        if (assignment.isEmpty()) {
            return false;
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(assignment);
        return assignment.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
    }

    /**
     * Waits until the worker has read every request committed so far (and answered every COMPACT
     * one), so what it recorded is complete.
     */
    public void awaitCaughtUp(Duration timeout) throws InterruptedException {
        CountDownLatch latch = new CountDownLatch(1);
        caughtUp = latch;
        if (!latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            assertHealthy();
            throw new AssertionError(
                    "test worker did not catch up with the requests within " + timeout.toSeconds() + " s");
        }
    }

    /** Waits until the worker's consumer has joined its group and owns the request partitions. */
    public void awaitAssigned(Duration timeout) throws InterruptedException {
        if (!assigned.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            assertHealthy();
            throw new AssertionError("test worker got no partitions within " + timeout.toSeconds() + " s");
        }
    }

    /** Throws if the worker thread died. */
    public void assertHealthy() {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("test worker failed: " + t, t);
        }
    }

    public List<LlmRequest> requests() {
        return List.copyOf(requests);
    }

    /** Requests read more than once ({@code kind/requestId at offset}); exactly-once output means none. */
    public List<String> duplicateRequests() {
        return List.copyOf(duplicates);
    }

    public Map<String, Answer> answers() {
        return Map.copyOf(answers);
    }

    /** Answers given for one session key, in no particular order. */
    public List<Answer> answersFor(String sessionKey) {
        List<Answer> out = new ArrayList<>();
        for (Answer answer : answers.values()) {
            if ((answer.request().dialog().tenant() + "/"
                            + answer.request().dialog().session())
                    .equals(sessionKey)) {
                out.add(answer);
            }
        }
        return out;
    }

    /** The payload of the last OK answer for a session key, or "" if none. */
    public String latestSummary(String sessionKey) {
        return latestSummary.getOrDefault(sessionKey, "");
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        producer.close(Duration.ofSeconds(5));
    }
}
