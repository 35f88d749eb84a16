package io.reme.worker;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.indexstore.MemoryTopic;
import io.reme.json.Json;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.RequestSecret;
import io.reme.llm.ResultSignature;
import io.reme.metrics.PipelineMetrics;
import io.reme.search.MemoryRecord;
import io.reme.topic.RecordLimits;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import io.reme.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the LLM workers write: the signed result of a request on {@code llm.results}, an extraction's
 * memories on {@code memories.pending} (the new ones only within the tenant's memory quota) and dead
 * letters, bounded to what the producer may send. Every write waits for Kafka's acknowledgement and
 * throws a {@link WriteFailedException} when it does not come.
 *
 * <p>Thread-safe: the workers share one. It writes through a producer it does not own (made by
 * {@link #producer}); its owner closes it.
 */
final class WorkerOutputs {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerOutputs.class);
    /** The producer's max.request.size: a default LLM request (a window) plus headroom. */
    private static final int MAX_RECORD_BYTES = 17 * 1024 * 1024;

    private final Producer<String, byte[]> producer;
    private final Topics topics;
    private final RequestSecret secret;
    private final PipelineMetrics metrics;
    private final MemoryPartitioning partitioning;
    private final MemoryQuota quota;
    private final WorkerTracing tracing;
    private volatile MemoryTopic pending;

    WorkerOutputs(
            Producer<String, byte[]> producer,
            Topics topics,
            RequestSecret secret,
            PipelineMetrics metrics,
            MemoryPartitioning partitioning,
            MemoryQuota quota,
            WorkerTracing tracing) {
        this.producer = producer;
        this.topics = topics;
        this.secret = secret;
        this.metrics = metrics;
        this.partitioning = partitioning;
        this.quota = quota;
        this.tracing = tracing;
    }

    /** The producer these outputs need: idempotent, acknowledged by every replica, records up to a request's size. */
    static KafkaProducer<String, byte[]> producer(Map<String, Object> clientProps) {
        Map<String, Object> producerProps = new HashMap<>(clientProps);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        producerProps.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_RECORD_BYTES);
        return new KafkaProducer<>(producerProps, new StringSerializer(), new ByteArraySerializer());
    }

    /** The result of the request record {@code key}, signed: the session processor applies no answer without it. */
    void answer(String key, LlmResult result) {
        byte[] value = Json.bytes(result);
        RecordHeaders headers = new RecordHeaders();
        byte[] keyBytes = key == null ? new byte[0] : key.getBytes(StandardCharsets.UTF_8);
        headers.add(ResultSignature.header(secret, keyBytes, value));
        // The result continues the worker's trace: what the session does with it is part of the same story.
        TraceHeaders.addTo(headers, RecordTracing.current());
        send(new ProducerRecord<>(topics.llmResults(), null, key, value, headers));
    }

    /**
     * Writes an extraction's memories to {@code memories.pending}: every update, and the new memories
     * that fit in the tenant's memory count (asked once per request, only when there are new ones); the
     * new ones past it are dead-lettered ({@link DlqReason#MEMORY_QUOTA}) instead.
     */
    void memories(LlmRequest request, RequestHandler.Outcome outcome) {
        long fresh = outcome.memories().stream().filter(outcome::isNew).count();
        MemoryQuota.Room room = fresh == 0
                ? MemoryQuota.Room.UNLIMITED
                : quota.room(request.dialog().tenant());
        long free = room.free();
        long admitted = 0;
        for (MemoryRecord memory : outcome.memories()) {
            ProducerRecord<String, byte[]> record = pending().upsert(memory);
            if (outcome.isNew(memory)) {
                if (free == 0) {
                    LOG.warn(
                            "extracted memory refused at quota tenant={} session={} requestId={} memoryId={} "
                                    + "memories={} admitted={} maxMemories={}",
                            request.dialog().tenant(),
                            request.dialog().session(),
                            request.requestId(),
                            memory.id(),
                            room.memories(),
                            admitted,
                            room.limit());
                    deadLetter(
                            record.key(),
                            record.value(),
                            DlqReason.MEMORY_QUOTA,
                            "tenant " + request.dialog().tenant() + " has " + room.memories() + " memories"
                                    + (admitted > 0 ? " and " + admitted + " new from this extraction" : "")
                                    + ", the most its policy allows (maxMemories " + room.limit() + ")",
                            record.topic(),
                            record.partition(),
                            -1);
                    continue;
                }
                free--;
                admitted++;
            }
            // A memory written from the dialog, as the GenAI memory conventions name it; the record carries the trace
            // on.
            Span span = tracing.memoryWrite(
                    outcome.isNew(memory) ? "create_memory" : "update_memory",
                    topics.memories(),
                    memory.tenant(),
                    1,
                    memory.id());
            try (Scope _ = span.makeCurrent()) {
                TraceHeaders.addTo(record.headers(), RecordTracing.current());
                send(record);
            } finally {
                span.end();
            }
        }
    }

    /** {@code memories.pending}, its partitions asked once (the topic is never resized under a running app). */
    private MemoryTopic pending() {
        MemoryTopic topic = pending;
        if (topic == null) {
            topic = new MemoryTopic(
                    topics.memoriesPending(),
                    producer.partitionsFor(topics.memoriesPending()).size(),
                    partitioning);
            pending = topic;
        }
        return topic;
    }

    /**
     * A dead letter of the record at {@code topic}, {@code partition}, {@code offset} (-1 for a record never
     * written), its value cut to what the producer may send, counted in the metrics.
     */
    void deadLetter(
            String key, byte[] value, DlqReason reason, String detail, String topic, int partition, long offset) {
        RecordHeaders headers = (RecordHeaders)
                DeadLetterHeaders.of(null, reason, detail, topic, partition, offset, System.currentTimeMillis());
        // A request is at most what its topic holds; the bound keeps a dead letter within the producer's limit.
        byte[] bounded = DeadLetters.bound(null, value, headers, MAX_RECORD_BYTES - RecordLimits.HEADROOM)
                .value();
        send(new ProducerRecord<>(topics.dlq(), null, key, bounded, headers));
        metrics.deadLetter(reason);
    }

    private void send(ProducerRecord<String, byte[]> record) {
        try {
            producer.send(record).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while producing to " + record.topic(), e);
        } catch (ExecutionException e) {
            throw new WriteFailedException(record.topic(), e.getCause());
        } catch (TimeoutException | KafkaException | IllegalStateException e) {
            // send() itself throws when the record cannot be serialised or the producer is closed.
            throw new WriteFailedException(record.topic(), e);
        }
    }

    /** A write that failed, with what kind of failure it was. */
    static final class WriteFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String topic;

        WriteFailedException(String topic, Throwable cause) {
            super("cannot produce to " + topic + ": " + cause, cause);
            this.topic = topic;
        }

        String topic() {
            return topic;
        }

        SendFailures kind() {
            return SendFailures.of(getCause());
        }
    }
}
