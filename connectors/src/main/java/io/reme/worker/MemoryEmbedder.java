package io.reme.worker;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.json.Json;
import io.reme.metrics.PipelineMetrics;
import io.reme.retry.RetryPolicy;
import io.reme.search.MemoryEmbedding;
import io.reme.search.MemoryRecord;
import io.reme.topic.Topics;
import io.reme.trace.TraceHeaders;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives memories their vectors: reads records without vectors from {@code memories.pending}, embeds
 * them in batches and writes them, vector and model id included, to {@code memories} under the same
 * key and partition (the extraction workers framed them, as every writer does, with {@code MemoryTopic});
 * tombstones pass through. A failing batch is retried with backoff; a record that
 * still fails goes to the dead-letter topic alone, so one bad record never disables vectors for
 * everyone. Offsets are committed after the writes are acknowledged (at-least-once; writes are
 * upserts by id, so a repeat is harmless; the poll loop is a {@link ConsumerLoop}). Without a model (search on text only) memories are
 * forwarded as they are, so they still reach the index. Lifecycle: {@link #start}, {@link #close}.
 */
public final class MemoryEmbedder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryEmbedder.class);
    /** Dead letters carry memories whole up to this size, an excerpt beyond (the producer's limit is 1 MB). */
    private static final int MAX_DEAD_LETTER_BYTES = 512 * 1024;

    private final Topics topics;
    private final EmbeddingModel model;
    private final KafkaProducer<String, byte[]> producer;
    private final RetryPolicy retry = RetryPolicy.exponential(
            4,
            Duration.ofMillis(200),
            Duration.ofSeconds(10),
            e -> e instanceof EmbeddingException embedding && embedding.retryable());
    private final PipelineMetrics metrics;
    /** The offsets of the batches written, to commit; used on the loop's thread only. */
    private final Map<TopicPartition, OffsetAndMetadata> written = new HashMap<>();

    private final ConsumerLoop<String, byte[]> loop;

    private MemoryEmbedder(
            Map<String, Object> clientProps,
            Topics topics,
            String groupId,
            EmbeddingModel model,
            PipelineMetrics metrics) {
        this.topics = topics;
        this.model = model;
        this.metrics = metrics;
        KafkaConsumer<String, byte[]> consumer = MemoryClients.consumer(clientProps, groupId);
        this.producer = MemoryClients.producer(clientProps);
        this.loop = ConsumerLoop.start("reme-embedder", consumer, new ConsumerLoop.Handler<>() {
            @Override
            public void open(Consumer<String, byte[]> consumer, Runnable commit) {
                consumer.subscribe(List.of(topics.memoriesPending()));
            }

            @Override
            public void handle(ConsumerRecords<String, byte[]> records) throws InterruptedException {
                embed(records);
            }

            @Override
            public Map<TopicPartition, OffsetAndMetadata> done() {
                Map<TopicPartition, OffsetAndMetadata> done = Map.copyOf(written);
                written.clear();
                return done;
            }
        });
    }

    public static MemoryEmbedder start(
            Map<String, Object> clientProps,
            Topics topics,
            String groupId,
            EmbeddingModel model,
            PipelineMetrics metrics) {
        MemoryEmbedder embedder = new MemoryEmbedder(clientProps, topics, groupId, model, metrics);
        if (model == null) {
            LOG.info("memory embedder started without a model: memories are indexed for text search only");
        } else {
            LOG.info("memory embedder started model={} dimensions={}", model.id(), model.dimensions());
        }
        return embedder;
    }

    /**
     * One poll's records: written with their vectors (or dead-lettered), then their offsets are done. A failure
     * to write ends the loop before the offsets are reported, so the batch is read again after a restart.
     */
    private void embed(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        if (records.isEmpty()) {
            return;
        }
        List<ConsumerRecord<String, byte[]>> batch = new ArrayList<>();
        records.forEach(batch::add);
        handle(batch);
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<String, byte[]>> read = records.records(partition);
            written.put(
                    partition, new OffsetAndMetadata(read.get(read.size() - 1).offset() + 1));
        }
    }

    /** A write to {@code memories} and the record of {@code memories.pending} it came from. */
    private record Write(ConsumerRecord<String, byte[]> source, Future<RecordMetadata> future) {}

    private void handle(List<ConsumerRecord<String, byte[]>> batch) throws InterruptedException {
        List<Write> sent = new ArrayList<>();
        List<Future<RecordMetadata>> deadLetters = new ArrayList<>();
        List<ConsumerRecord<String, byte[]>> toEmbed = new ArrayList<>();
        List<MemoryRecord> memories = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : batch) {
            if (record.value() == null) {
                sent.add(new Write(
                        record,
                        producer.send(
                                new ProducerRecord<>(topics.memories(), record.partition(), record.key(), null))));
                continue;
            }
            try {
                memories.add(Json.MAPPER.readValue(record.value(), MemoryRecord.class));
                toEmbed.add(record);
            } catch (IOException | RuntimeException e) {
                deadLetters.add(deadLetter(record, DlqReason.EMBEDDING_FAILED, "unreadable memory: " + e.getMessage()));
            }
        }
        Embedded embedded = model == null ? null : embed(memories);
        for (int i = 0; i < toEmbed.size(); i++) {
            ConsumerRecord<String, byte[]> record = toEmbed.get(i);
            MemoryRecord memory = memories.get(i);
            if (model != null) {
                List<float[]> vectors = embedded.vectors().get(i);
                if (vectors.get(0) == null) {
                    deadLetters.add(deadLetter(
                            record,
                            DlqReason.EMBEDDING_FAILED,
                            "embedding failed after " + retry.maxAttempts() + " attempts"));
                    continue;
                }
                if (vectors.stream().anyMatch(Objects::isNull)) {
                    // Still indexed and found by its text, its words in context and its text vector.
                    LOG.warn(
                            "memory indexed without its context vector partition={} offset={} id={}",
                            record.partition(),
                            record.offset(),
                            memory.id());
                }
                memory = MemoryEmbedding.withVectors(memory, vectors, embedded.models()[i].id());
            }
            sent.add(new Write(
                    record,
                    // Under its trace: the memory's index write is part of the story that extracted it.
                    producer.send(new ProducerRecord<>(
                            topics.memories(),
                            record.partition(),
                            record.key(),
                            Json.bytes(memory),
                            TraceHeaders.of(record.headers())))));
        }
        for (Write write : sent) {
            try {
                write.future().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // A memory its topic refuses (too large, invalid) is that record's fault: dead-letter it and go on.
                // Anything else (a closed or fenced producer, a broker away) is not: stop before committing.
                if (SendFailures.of(e.getCause()) != SendFailures.RECORD) {
                    throw new IllegalStateException("cannot write memories: " + e.getMessage(), e);
                }
                LOG.warn(
                        "memory refused by kafka, dead-lettered partition={} offset={} error={}",
                        write.source().partition(),
                        write.source().offset(),
                        e.getCause().toString());
                deadLetters.add(deadLetter(
                        write.source(), SendFailures.reason(e.getCause()), "memory refused by kafka: " + e.getCause()));
            } catch (TimeoutException e) {
                throw new IllegalStateException("cannot write memories: " + e.getMessage(), e);
            }
        }
        for (Future<RecordMetadata> future : deadLetters) {
            try {
                future.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // Unwritten dead letters must not be committed past: the batch is read again after a restart.
                throw new IllegalStateException("cannot write dead letters: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Each memory's model and the vectors of its {@link MemoryEmbedding#texts} (null where embedding failed).
     */
    private record Embedded(EmbeddingModel[] models, List<List<float[]>> vectors) {}

    /**
     * Embeds what is searched of each memory ({@link MemoryEmbedding#texts}: its text, and its text with context)
     * with the model of its text's language ({@link EmbeddingModel#modelFor}): one batch
     * per model.
     */
    private Embedded embed(List<MemoryRecord> memories) throws InterruptedException {
        int n = memories.size();
        EmbeddingModel[] models = new EmbeddingModel[n];
        List<List<float[]>> vectors = new ArrayList<>(Collections.nCopies(n, List.of()));
        Map<EmbeddingModel, List<Integer>> byModel = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            models[i] = model.modelFor(memories.get(i).text());
            byModel.computeIfAbsent(models[i], m -> new ArrayList<>()).add(i);
        }
        for (Map.Entry<EmbeddingModel, List<Integer>> group : byModel.entrySet()) {
            List<String> texts = new ArrayList<>();
            List<Integer> counts = new ArrayList<>();
            for (int i : group.getValue()) {
                List<String> own = MemoryEmbedding.texts(memories.get(i));
                texts.addAll(own);
                counts.add(own.size());
            }
            List<float[]> all = embedEach(group.getKey(), texts);
            int next = 0;
            for (int j = 0; j < counts.size(); j++) {
                vectors.set(group.getValue().get(j), all.subList(next, next + counts.get(j)));
                next += counts.get(j);
            }
        }
        return new Embedded(models, vectors);
    }

    /** The whole batch's vectors, or null if the batch kept failing (then each record is tried alone). */
    private List<float[]> embedWithRetries(EmbeddingModel model, List<String> texts) throws InterruptedException {
        if (texts.isEmpty()) {
            return List.of();
        }
        try {
            return retry.call(
                    attempt -> model.embed(texts),
                    (attempt, e) -> LOG.warn(
                            "embedding batch failed size={} attempt={} retryable={} error={}",
                            texts.size(),
                            attempt,
                            retry.retries(e),
                            e.getMessage()));
        } catch (EmbeddingException e) {
            return null;
        }
    }

    /**
     * One vector per text, null where embedding failed: the whole batch with retries, and if it keeps
     * failing each text alone, so one text the model refuses does not cost the others their vectors.
     */
    private List<float[]> embedEach(EmbeddingModel model, List<String> texts) throws InterruptedException {
        List<float[]> batch = embedWithRetries(model, texts);
        if (batch != null) {
            return batch;
        }
        List<float[]> each = new ArrayList<>(texts.size());
        for (String text : texts) {
            List<float[]> one = embedWithRetries(model, List.of(text));
            each.add(one == null ? null : one.get(0));
        }
        return each;
    }

    private Future<RecordMetadata> deadLetter(ConsumerRecord<String, byte[]> record, DlqReason reason, String detail) {
        RecordHeaders headers = (RecordHeaders) DeadLetterHeaders.of(
                record.headers(),
                reason,
                detail,
                record.topic(),
                record.partition(),
                record.offset(),
                record.timestamp());
        // Within the producer's default max.request.size, whatever the memory's size.
        byte[] value = DeadLetters.bound(null, record.value(), headers, MAX_DEAD_LETTER_BYTES)
                .value();
        metrics.deadLetter(reason);
        return producer.send(new ProducerRecord<>(topics.dlq(), null, record.key(), value, headers));
    }

    @Override
    public void close() {
        loop.close();
        producer.close(Duration.ofSeconds(5));
    }
}
