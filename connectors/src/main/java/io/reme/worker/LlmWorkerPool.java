package io.reme.worker;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.reme.dlq.DlqReason;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.llm.RequestSecret;
import io.reme.metrics.PipelineMetrics;
import io.reme.provider.LlmClient;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import io.reme.trace.TraceHeaders;
import io.reme.worker.WorkerOutputs.WriteFailedException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LLM workers. One poller thread owns the consumer of {@code llm.requests} (a consumer group:
 * every request is handled by one member, and the group rebalances as workers come and go); it
 * queues requests per tenant and pauses fetching when the queue is full. {@code concurrency}
 * worker threads take requests round-robin across tenants and answer on {@code llm.results}.
 * Offsets are committed only past requests whose result is acknowledged by Kafka, so a crash
 * re-delivers, never drops; the session processor drops the duplicate answers that can cause.
 * Results, extracted memories and dead letters are written through {@link WorkerOutputs}.
 * Lifecycle: {@link #start}, {@link #close}.
 */
public final class LlmWorkerPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LlmWorkerPool.class);
    public static final String DEFAULT_GROUP = "reme-llm-workers";

    private final Topics topics;
    private final WorkerSettings settings;
    private final KafkaProducer<String, byte[]> producer;
    private final WorkerOutputs outputs;
    private final DiaryDocuments documents;
    private final RequestHandler handler;
    private final WorkerTracing tracing;
    private final PipelineMetrics metrics;
    private final FairQueue<Job> queue;
    private final OffsetTracker offsets = new OffsetTracker();
    private final ExecutorService workers;
    private final ExecutorService calls;
    private final ConsumerLoop<String, byte[]> poller;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean running = true;

    /**
     * One kind of one request record. {@code raw} is the record's value, or null when the record asked for
     * several kinds and this job is one of them.
     */
    private record Job(
            TopicPartition partition, long offset, String key, byte[] raw, LlmRequest request, Headers trace) {
        /** The request as a worker reads it: the record's own bytes, or this kind's request alone. */
        byte[] value() {
            return raw != null ? raw : Json.bytes(request);
        }
    }

    /**
     * What a pool is started with.
     *
     * @param clientProps bootstrap servers and client overrides, shared by the consumer and producer
     * @param metrics where calls, answered requests and dead letters are reported
     * @param extraction the existing memories EXTRACT requests merge with, the memories' partitioning and the
     *     tenants' memory quota
     * @param secret the deployment's secret, which signs the results and diary edits (the session and diary
     *     processors verify them with it)
     * @param tenantConcurrency how many requests of a tenant may be in calls at once
     */
    public record Setup(
            Map<String, Object> clientProps,
            Topics topics,
            String groupId,
            WorkerSettings settings,
            LlmClient client,
            TokenCounter tokens,
            PipelineMetrics metrics,
            ExtractionSetup extraction,
            RequestSecret secret,
            ToIntFunction<String> tenantConcurrency,
            OpenTelemetry openTelemetry) {
        /**
         * A setup of a pool of {@code client} reading {@code topics}' requests in group {@code groupId}: by default
         * no metrics, extraction without merging, a secret of its own (its results pass only with a session task
         * given the same), and no cap per tenant; each is set here.
         */
        public static final class Builder {
            private final Map<String, Object> clientProps;
            private final Topics topics;
            private final String groupId;
            private final WorkerSettings settings;
            private final LlmClient client;
            private final TokenCounter tokens;
            private PipelineMetrics metrics = PipelineMetrics.NONE;
            private ExtractionSetup extraction = ExtractionSetup.withoutLookup(true, 1);
            private RequestSecret secret = RequestSecret.random();
            private ToIntFunction<String> tenantConcurrency = tenant -> Integer.MAX_VALUE;
            private OpenTelemetry openTelemetry = OpenTelemetry.noop();

            public Builder(
                    Map<String, Object> clientProps,
                    Topics topics,
                    String groupId,
                    WorkerSettings settings,
                    LlmClient client,
                    TokenCounter tokens) {
                this.clientProps = clientProps;
                this.topics = topics;
                this.groupId = groupId;
                this.settings = settings;
                this.client = client;
                this.tokens = tokens;
            }

            public Builder metrics(PipelineMetrics newMetrics) {
                metrics = newMetrics;
                return this;
            }

            public Builder extraction(ExtractionSetup newExtraction, RequestSecret newSecret) {
                extraction = newExtraction;
                secret = newSecret;
                return this;
            }

            public Builder tenantConcurrency(ToIntFunction<String> newTenantConcurrency) {
                tenantConcurrency = newTenantConcurrency;
                return this;
            }

            public Builder openTelemetry(OpenTelemetry newOpenTelemetry) {
                openTelemetry = newOpenTelemetry;
                return this;
            }

            public Setup build() {
                return new Setup(
                        clientProps,
                        topics,
                        groupId,
                        settings,
                        client,
                        tokens,
                        metrics,
                        extraction,
                        secret,
                        tenantConcurrency,
                        openTelemetry);
            }
        }
    }

    private LlmWorkerPool(Setup setup) {
        this.queue = new FairQueue<>(setup.tenantConcurrency());
        this.topics = setup.topics();
        this.settings = setup.settings();
        this.metrics = setup.metrics();
        this.producer = WorkerOutputs.producer(setup.clientProps());
        this.tracing = new WorkerTracing(setup.openTelemetry());
        this.outputs = new WorkerOutputs(
                producer,
                setup.topics(),
                setup.secret(),
                setup.metrics(),
                setup.extraction().partitioning(),
                setup.extraction().quota(),
                tracing);
        this.documents = DiaryDocuments.start(
                setup.clientProps(),
                producer,
                setup.topics().diary(),
                setup.topics().diaryEdits(),
                setup.secret());
        Map<String, Object> consumerProps = new HashMap<>(setup.clientProps());
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, setup.groupId());
        // Requests are written by an exactly-once Streams app: never act on an aborted one.
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                Math.max(1, Math.min(500, setup.settings().queueLimit())));
        consumerProps.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 17 * 1024 * 1024);
        KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(consumerProps, new StringDeserializer(), new ByteArrayDeserializer());
        // A call runs on a thread of its own (for its timeout): the task carries the worker's span to it.
        this.calls = Context.taskWrapping(Executors.newCachedThreadPool(daemon("reme-llm-call")));
        this.handler = new RequestHandler(
                new TracedLlmClient(setup.client(), tracing.tracer()),
                setup.tokens(),
                setup.settings(),
                documents,
                calls,
                RequestHandler.retryPolicy(setup.settings()),
                Clock.systemUTC(),
                setup.metrics(),
                setup.extraction().enabled() ? setup.extraction().lookup() : null);
        this.workers = Executors.newFixedThreadPool(setup.settings().concurrency(), daemon("reme-llm-worker"));
        this.poller = ConsumerLoop.start("reme-llm-poller", consumer, new Poller());
    }

    /** Starts polling and the workers. */
    public static LlmWorkerPool start(Setup setup) {
        LlmWorkerPool pool = new LlmWorkerPool(setup);
        for (int i = 0; i < setup.settings().concurrency(); i++) {
            pool.workers.submit(pool::work);
        }
        LOG.info(
                "llm workers started provider={} concurrency={} group={}",
                setup.client().id(),
                setup.settings().concurrency(),
                setup.groupId());
        return pool;
    }

    /**
     * The poller's part: once the diary documents are loaded it subscribes, queues each request, pauses fetching
     * while the queue is full, and reports done the offsets whose results Kafka acknowledged.
     */
    private final class Poller implements ConsumerLoop.Handler<String, byte[]> {
        private Consumer<String, byte[]> consumer;
        private boolean paused;

        @Override
        public void open(Consumer<String, byte[]> consumer, Runnable commit)
                throws InterruptedException, TimeoutException {
            this.consumer = consumer;
            documents.awaitLoaded(Duration.ofMinutes(2));
            consumer.subscribe(List.of(topics.llmRequests()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    commit.run();
                    partitions.forEach(offsets::forget);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    LOG.info("llm request partitions assigned count={}", partitions.size());
                }
            });
        }

        @Override
        public void handle(ConsumerRecords<String, byte[]> records) {
            for (ConsumerRecord<String, byte[]> record : records) {
                accept(record);
            }
            boolean full = queue.size() >= settings.queueLimit();
            if (full && !paused) {
                consumer.pause(consumer.assignment());
                paused = true;
            } else if (!full && paused) {
                consumer.resume(consumer.paused());
                paused = false;
            }
        }

        @Override
        public Map<TopicPartition, OffsetAndMetadata> done() {
            return offsets.committable();
        }
    }

    private void accept(ConsumerRecord<String, byte[]> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        offsets.fetched(partition, record.offset());
        LlmRequest request;
        try {
            request = Json.MAPPER.readValue(record.value(), LlmRequest.class);
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "unreadable llm request dead-lettered partition={} offset={}", record.partition(), record.offset());
            outputs.deadLetter(
                    record.key(),
                    record.value(),
                    DlqReason.INVALID_CONTENT,
                    "unreadable request: " + e.getMessage(),
                    record.topic(),
                    record.partition(),
                    record.offset());
            offsets.done(partition, record.offset());
            return;
        }
        List<LlmKind> kinds = request.kinds();
        Headers trace = TraceHeaders.of(record.headers());
        if (kinds.size() == 1) {
            queue.put(
                    request.dialog().tenant(),
                    new Job(partition, record.offset(), record.key(), record.value(), request, trace));
            return;
        }
        // One record, several kinds over one span: each is a job of its own, and the offset is done with the last.
        offsets.fetched(partition, record.offset(), kinds.size());
        for (LlmKind kind : kinds) {
            queue.put(
                    request.dialog().tenant(),
                    new Job(partition, record.offset(), record.key(), null, request.withKind(kind), trace));
        }
    }

    private void work() {
        while (running) {
            Job job;
            try {
                job = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (job == null) {
                continue;
            }
            if (!runTaken(job)) {
                return;
            }
        }
    }

    /**
     * One taken job, its tenant's share of the workers held until it is answered or put back; false
     * when this worker must stop.
     */
    private boolean runTaken(Job job) {
        try {
            return runOne(job);
        } finally {
            queue.done(job.request().dialog().tenant());
        }
    }

    private boolean runOne(Job job) {
        try {
            run(job);
        } catch (InterruptedException e) {
            return false;
        } catch (WriteFailedException e) {
            if (e.kind() == SendFailures.PRODUCER) {
                // Not the request's fault, and no later attempt can write either: stop instead of calling
                // the model again and again for answers that cannot be delivered.
                LOG.error(
                        "llm workers stop: their producer cannot write any more; requests stay uncommitted "
                                + "and are re-delivered to the next worker",
                        e);
                running = false;
                poller.stop();
                return false;
            }
            // A refused answer would meet the same refusal if the model were asked again: the request fails.
            boolean handled = e.kind() == SendFailures.RECORD && refuse(job, e);
            if (!handled && !requeue(job, e)) {
                return false;
            }
        } catch (RuntimeException e) {
            if (!requeue(job, e)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The result could not be written. Its offset stays uncommitted (so a crash re-delivers it) and the
     * request goes back in the queue, so the partition's commits do not stall behind it. False if interrupted.
     */
    private boolean requeue(Job job, RuntimeException e) {
        LOG.error(
                "request not answered, queued again tenant={} session={} requestId={}",
                job.request().dialog().tenant(),
                job.request().dialog().session(),
                job.request().requestId(),
                e);
        try {
            Thread.sleep(settings.backoffMax().toMillis());
        } catch (InterruptedException interrupted) {
            return false;
        }
        queue.put(job.request().dialog().tenant(), job);
        return true;
    }

    /**
     * An answer Kafka refuses for good: a FAILED result (small) in its place, so the session plans again,
     * and the request dead-lettered. False if that could not be written either.
     */
    private boolean refuse(Job job, WriteFailedException e) {
        LlmRequest request = job.request();
        LOG.error(
                "llm answer refused by kafka, request failed tenant={} session={} requestId={} topic={} error={}",
                request.dialog().tenant(),
                request.dialog().session(),
                request.requestId(),
                e.topic(),
                e.getCause().toString());
        try {
            outputs.answer(
                    job.key(),
                    LlmResult.failed(
                            request,
                            "answer refused by Kafka: " + e.getCause(),
                            1,
                            Clock.systemUTC().instant()));
            deadLetter(job, SendFailures.reason(e.getCause()), "answer to " + e.topic() + " refused: " + e.getCause());
        } catch (RuntimeException again) {
            return false;
        }
        failed.incrementAndGet();
        metrics.llmRequest(request.kind(), LlmStatus.FAILED);
        offsets.done(job.partition(), job.offset());
        return true;
    }

    private void run(Job job) throws InterruptedException {
        Span span = tracing.request(job.trace(), job.partition().topic(), job.offset(), job.request());
        try (Scope _ = span.makeCurrent()) {
            handle(job);
        } catch (InterruptedException | RuntimeException e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR);
            throw e;
        } finally {
            span.end();
        }
    }

    private void handle(Job job) throws InterruptedException {
        LlmRequest request = job.request();
        long start = System.nanoTime();
        RequestHandler.Outcome outcome = handler.handle(request);
        LlmResult result = outcome.result();
        // Memories first: once the result is out the request counts as done and is not re-delivered.
        outputs.memories(request, outcome);
        outputs.answer(job.key(), result);
        metrics.llmRequest(request.kind(), result.status());
        if (result.status() == LlmStatus.FAILED) {
            Span.current().setStatus(StatusCode.ERROR, "the request failed after " + outcome.attempts() + " attempts");
            failed.incrementAndGet();
            LOG.warn(
                    "llm request failed tenant={} session={} requestId={} kind={} attempts={} error={}",
                    request.dialog().tenant(),
                    request.dialog().session(),
                    request.requestId(),
                    request.kind(),
                    outcome.attempts(),
                    result.error());
            // A failed diary update or extraction is retried by the session processor, which dead-letters
            // the span itself when it gives up; dead-lettering each attempt here would invite a replay of a
            // span that a later attempt wrote.
            if (request.kind() == LlmKind.COMPACT) {
                deadLetter(job, DlqReason.LLM_FAILED, result.error());
            }
        } else {
            completed.incrementAndGet();
            LOG.info(
                    "llm request done tenant={} session={} requestId={} kind={} attempts={} ms={}",
                    request.dialog().tenant(),
                    request.dialog().session(),
                    request.requestId(),
                    request.kind(),
                    outcome.attempts(),
                    (System.nanoTime() - start) / 1_000_000);
        }
        offsets.done(job.partition(), job.offset());
    }

    /** The job's request record, dead-lettered from where it was read. */
    private void deadLetter(Job job, DlqReason reason, String detail) {
        outputs.deadLetter(
                job.key(),
                job.value(),
                reason,
                detail,
                job.partition().topic(),
                job.partition().partition(),
                job.offset());
    }

    /** Requests answered OK and FAILED since start. */
    public long completed() {
        return completed.get();
    }

    public long failed() {
        return failed.get();
    }

    @Override
    public void close() {
        running = false;
        poller.close();
        workers.shutdownNow();
        calls.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        documents.close();
        producer.close(Duration.ofSeconds(5));
        LOG.info("llm workers stopped completed={} failed={}", completed.get(), failed.get());
    }

    private static ThreadFactory daemon(String name) {
        AtomicLong counter = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
