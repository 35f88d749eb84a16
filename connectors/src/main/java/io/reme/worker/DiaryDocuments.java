package io.reme.worker;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.DocumentKey;
import io.reme.diary.EditSignature;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.trace.RecordTracing;
import io.reme.trace.TraceHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers' view of the diary documents: a reader of the compacted {@code diary} topic (all
 * partitions, from the start, committed data only) keeping the latest version of each document,
 * and the way to submit an edit and learn whether it won. Lifecycle: {@link #start}, then
 * {@link #awaitLoaded} before the first read, {@link #close} once.
 */
public final class DiaryDocuments implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DiaryDocuments.class);

    private static final int REMEMBERED_EDITS = 10_000;

    private final Map<String, DiaryDocument> latest = new ConcurrentHashMap<>();
    /** Recently applied edit IDs: an edit that won can be recognised even if a newer one already followed it. */
    private final Map<String, Boolean> appliedEdits =
            Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, false) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > REMEMBERED_EDITS;
                }
            });

    private final Producer<String, byte[]> producer;
    private final String diaryTopic;
    private final String editsTopic;
    private final RequestSecret secret;
    private final Object changed = new Object();
    private volatile boolean loaded;
    private final ConsumerLoop<String, byte[]> reader;

    private DiaryDocuments(
            Map<String, Object> consumerProps,
            Producer<String, byte[]> producer,
            String diaryTopic,
            String editsTopic,
            RequestSecret secret) {
        this.producer = producer;
        this.diaryTopic = diaryTopic;
        this.editsTopic = editsTopic;
        this.secret = secret;
        // Last: the reader's thread sees every field above.
        this.reader = ConsumerLoop.start(
                "reme-diary-reader",
                new KafkaConsumer<>(consumerProps, new StringDeserializer(), new ByteArrayDeserializer()),
                new Reader());
    }

    /**
     * @param clientProps bootstrap servers and any client overrides
     * @param producer shared producer used to submit edits
     * @param secret the deployment's secret, which signs every edit (the diary processor refuses others)
     */
    public static DiaryDocuments start(
            Map<String, Object> clientProps,
            Producer<String, byte[]> producer,
            String diaryTopic,
            String editsTopic,
            RequestSecret secret) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return new DiaryDocuments(props, producer, diaryTopic, editsTopic, secret);
    }

    /** Reads every partition from the start, without a group (nothing to commit), and says when it caught up. */
    private final class Reader implements ConsumerLoop.Handler<String, byte[]> {
        private Consumer<String, byte[]> consumer;
        private Map<TopicPartition, Long> ends;

        @Override
        public void open(Consumer<String, byte[]> consumer, Runnable commit) {
            this.consumer = consumer;
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(diaryTopic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(diaryTopic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            ends = consumer.endOffsets(partitions);
        }

        @Override
        public void handle(ConsumerRecords<String, byte[]> records) {
            for (ConsumerRecord<String, byte[]> record : records) {
                apply(record);
            }
            if (!loaded && caughtUp()) {
                loaded = true;
                LOG.info("diary documents loaded count={}", latest.size());
                synchronized (changed) {
                    changed.notifyAll();
                }
            }
        }

        @Override
        public Map<TopicPartition, OffsetAndMetadata> done() {
            return Map.of();
        }

        private boolean caughtUp() {
            for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                if (consumer.position(end.getKey()) < end.getValue()) {
                    return false;
                }
            }
            return true;
        }
    }

    private void apply(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            latest.remove(record.key());
        } else {
            try {
                DiaryDocument document = Json.MAPPER.readValue(record.value(), DiaryDocument.class);
                appliedEdits.put(document.editId(), Boolean.TRUE);
                latest.merge(record.key(), document, (old, now) -> now.version() >= old.version() ? now : old);
            } catch (IOException e) {
                LOG.warn("unreadable diary document skipped key={} offset={}", record.key(), record.offset());
                return;
            }
        }
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    /** Blocks until every document written before start-up has been read. */
    public void awaitLoaded(Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changed) {
            while (!loaded) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("diary documents not loaded within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(changed, left);
            }
        }
    }

    public Optional<DiaryDocument> get(DocumentKey key) {
        return Optional.ofNullable(latest.get(key.key()));
    }

    /**
     * Submits an edit and waits until the document moves past the edit's base version.
     *
     * @return true if this edit is the one that was applied; false if another edit won the race
     */
    public boolean submit(DiaryEdit edit, Duration timeout) throws InterruptedException, TimeoutException {
        String key = edit.key().key();
        try {
            byte[] value = Json.MAPPER.writeValueAsBytes(edit);
            producer.send(new ProducerRecord<>(
                            editsTopic,
                            null,
                            key,
                            value,
                            // The edit continues the diary update's trace: the document it makes is part of it.
                            TraceHeaders.addTo(
                                    new RecordHeaders(List.of(
                                            EditSignature.header(secret, key.getBytes(StandardCharsets.UTF_8), value))),
                                    RecordTracing.current())))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | IOException e) {
            throw new IllegalStateException("cannot submit diary edit for " + key + ": " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changed) {
            while (true) {
                DiaryDocument current = latest.get(key);
                if (current != null && current.version() > edit.baseVersion()) {
                    return appliedEdits.containsKey(edit.editId());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("diary edit of " + key + " not seen within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(changed, left);
            }
        }
    }

    @Override
    public void close() {
        reader.close();
    }
}
