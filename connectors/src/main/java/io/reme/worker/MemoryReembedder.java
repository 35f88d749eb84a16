package io.reme.worker;

import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.indexstore.EmbeddingSwitch;
import io.reme.json.Json;
import io.reme.metrics.PipelineMetrics;
import io.reme.retry.RetryPolicy;
import io.reme.search.MemoryEmbedding;
import io.reme.search.MemoryRecord;
import io.reme.topic.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
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
 * Gives every memory on the {@code memories} topic the vectors of the configured embedding profile, in the
 * background, and then tells each partition's index to search with it. It reads the topic from the start (the log
 * is the source of truth), and writes each memory that lacks a vector of the model its text goes to back under the
 * same key and partition with that vector added ({@link MemoryRecord#withMoreVectors}): the old model's vectors stay,
 * so the indexes keep answering with them meanwhile. Once it has read a partition to its end with none of its writes
 * unconfirmed, it writes an {@link EmbeddingSwitch} there: the index that applies it, in offset order, holds the new
 * vectors of every memory before it. It keeps reading afterwards, so memories written by an instance still on the
 * old model get the new vectors too.
 *
 * <p><b>Edits meanwhile.</b> A rewrite carries the content it read; if the memory was edited or deleted after that
 * record and before the rewrite, the rewrite would bring the old content back, and compaction would then keep it.
 * So each rewrite names the offset of the record it was made from ({@link #REEMBEDDED_FROM}), and before reading a
 * partition the re-embedder reads its keys to the end (no values parsed, nothing embedded: the
 * {@link ReembedPartition.Latest} of each key). It rewrites only a key's latest content record; a later record of
 * the key, read while the rewrite is on its way, is written again after it (a tombstone again, an edit with the new
 * vectors); and a rewrite found stale by the key pass (a crash came before it was read back) has the content it
 * shadows written again.
 *
 * <p><b>Resuming.</b> Offsets are committed in the group {@code groupId} as the partition is read, with the profile
 * they were read for and the last switch seen in the partition as the commit's metadata. A restart for the same
 * profile goes on from there (the key pass is read again, which costs a read of the partition, not its embedding,
 * and is skipped when the partition was switched and nothing came since), and a switch already written is not written
 * again; a restart for another profile (the next change of model) reads every partition from its start.
 *
 * <p>What it knows of each partition, and what a record read there asks of it, is kept by a
 * {@link ReembedPartition}; this class embeds, writes and commits.
 *
 * <p>Lifecycle: {@link #start}, {@link #close}. Writes are at-least-once; rewrites are upserts of the same content.
 */
public final class MemoryReembedder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryReembedder.class);
    /** The header of a rewrite: the offset of the record whose content it carries. */
    public static final String REEMBEDDED_FROM = "reme.reembedded-from";

    private static final Duration END_OFFSETS_EVERY = Duration.ofSeconds(1);

    private final Map<String, Object> clientProps;
    private final Topics topics;
    private final EmbeddingModel model;
    private final String profile;
    private final PipelineMetrics metrics;
    private final KafkaProducer<String, byte[]> producer;
    private final RetryPolicy retry = RetryPolicy.exponential(
            4,
            Duration.ofMillis(200),
            Duration.ofSeconds(10),
            e -> e instanceof EmbeddingException embedding && embedding.retryable());
    /** The assigned partitions' state; used on the loop's thread only. */
    private final Map<TopicPartition, ReembedPartition> partitions = new HashMap<>();

    private final ConsumerLoop<String, byte[]> loop;
    private long endOffsetsAt;

    private MemoryReembedder(
            Map<String, Object> clientProps,
            Topics topics,
            String groupId,
            EmbeddingModel model,
            PipelineMetrics metrics) {
        this.clientProps = Map.copyOf(clientProps);
        this.topics = topics;
        this.model = model;
        this.profile = model.profile();
        this.metrics = metrics;
        KafkaConsumer<String, byte[]> consumer = MemoryClients.consumer(clientProps, groupId);
        this.producer = MemoryClients.producer(clientProps);
        this.loop = ConsumerLoop.start("reme-reembedder", consumer, new ConsumerLoop.Handler<>() {
            private Consumer<String, byte[]> consumer;

            @Override
            public void open(Consumer<String, byte[]> consumer, Runnable commit) {
                this.consumer = consumer;
                consumer.subscribe(List.of(topics.memories()), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                        commit.run();
                        revoked.forEach(partitions::remove);
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                        assign(consumer, assigned);
                    }
                });
            }

            @Override
            public void handle(ConsumerRecords<String, byte[]> records) throws InterruptedException {
                reembed(consumer, records);
            }

            @Override
            public Map<TopicPartition, OffsetAndMetadata> done() {
                Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
                partitions.forEach((tp, state) -> done.put(tp, state.committable(profile)));
                return done;
            }
        });
    }

    /** Starts re-embedding toward {@code model}'s profile ({@link EmbeddingModel#profile()}). */
    public static MemoryReembedder start(
            Map<String, Object> clientProps,
            Topics topics,
            String groupId,
            EmbeddingModel model,
            PipelineMetrics metrics) {
        MemoryReembedder reembedder = new MemoryReembedder(clientProps, topics, groupId, model, metrics);
        LOG.info("memory re-embedder started profile={} group={}", model.profile(), groupId);
        return reembedder;
    }

    private void assign(Consumer<String, byte[]> consumer, Collection<TopicPartition> assigned) {
        if (assigned.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(assigned);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(assigned));
        for (TopicPartition tp : assigned) {
            OffsetAndMetadata at = committed.get(tp);
            String lastSwitch = ReembedPartition.lastSwitchIn(at);
            if (ReembedPartition.readForAnother(at, profile)) {
                // The offsets of a pass for another profile: this one reads the partition from its start.
                consumer.seek(tp, begin.getOrDefault(tp, 0L));
            }
            long position = consumer.position(tp);
            if (profile.equals(lastSwitch)
                    && position >= consumer.endOffsets(List.of(tp)).get(tp)) {
                // Done before and nothing new: no key pass (a read of the whole partition) at every start.
                partitions.put(tp, ReembedPartition.switched(begin.getOrDefault(tp, 0L), position, lastSwitch));
                continue;
            }
            long started = System.nanoTime();
            ReembedPartition.KeyPass keys = ReembedPartition.keyPass(clientProps, tp);
            ReembedPartition state = new ReembedPartition(begin.getOrDefault(tp, 0L), position, lastSwitch, keys);
            partitions.put(tp, state);
            LOG.info(
                    "re-embedding partition={} from offset={} keys={} keysEnd={} keyPassMs={} lastSwitch={} profile={}",
                    tp.partition(),
                    position,
                    keys.latest().size(),
                    keys.end(),
                    (System.nanoTime() - started) / 1_000_000,
                    lastSwitch,
                    profile);
            sayAgainBefore(tp, state, keys.reader(), position);
            keys.reader().close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
        endOffsetsAt = 0;
    }

    /**
     * Says again the content that stale rewrites shadow, for the keys whose content lies before {@code position}
     * (the scan will not read it again): a crash came between such a rewrite and its reading back.
     */
    private void sayAgainBefore(
            TopicPartition tp, ReembedPartition state, KafkaConsumer<String, byte[]> reader, long position) {
        List<Needed> needed = new ArrayList<>();
        for (long offset : state.shadowedBefore(position)) {
            reader.seek(tp, offset);
            for (ConsumerRecord<String, byte[]> r :
                    reader.poll(Duration.ofSeconds(5)).records(tp)) {
                if (r.offset() == offset) {
                    Needed need = shadowed(state, r);
                    if (need != null) {
                        needed.add(need);
                    }
                    break;
                }
            }
        }
        if (!needed.isEmpty()) {
            LOG.info(
                    "re-embedding says again content shadowed by stale rewrites partition={} memories={}",
                    tp.partition(),
                    needed.size());
            try {
                rewrite(needed);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A record that needs the configured profile's vectors, and the memory it holds. */
    private record Needed(ConsumerRecord<String, byte[]> record, MemoryRecord memory) {}

    private void reembed(Consumer<String, byte[]> consumer, ConsumerRecords<String, byte[]> records)
            throws InterruptedException {
        List<Needed> needed = new ArrayList<>();
        for (TopicPartition tp : records.partitions()) {
            ReembedPartition state = partitions.get(tp);
            if (state == null) {
                continue;
            }
            List<ConsumerRecord<String, byte[]>> read = records.records(tp);
            // Only a key's last record in the batch is worth rewriting: an earlier one is already superseded.
            Map<String, Long> last = new HashMap<>();
            read.forEach(r -> last.put(r.key(), r.offset()));
            for (ConsumerRecord<String, byte[]> record : read) {
                Needed need = needed(state, state.read(record, last.get(record.key()) == record.offset()));
                if (need != null) {
                    needed.add(need);
                }
            }
        }
        rewrite(needed);
        for (TopicPartition tp : records.partitions()) {
            ReembedPartition state = partitions.get(tp);
            if (state != null) {
                state.readTo(consumer.position(tp));
            }
        }
        if (System.nanoTime() - endOffsetsAt > END_OFFSETS_EVERY.toNanos() || !records.isEmpty()) {
            refreshEnds(consumer);
        }
        switchCaughtUp();
    }

    /** What a record's {@link ReembedPartition.Ask} comes to: a memory to rewrite, or null for nothing. */
    private Needed needed(ReembedPartition state, ReembedPartition.Ask ask) {
        if (ask == null) {
            return null;
        }
        return ask.sayAgain() ? shadowed(state, ask.record()) : needsVectors(ask.record());
    }

    /** A memory lacking the profile's vector, to rewrite; null for a tombstone or a memory that has it. */
    private Needed needsVectors(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        MemoryRecord memory = parse(record);
        if (memory == null || memory.hasVectorOf(model.modelFor(memory.text()).id())) {
            return null;
        }
        return new Needed(record, memory);
    }

    /**
     * The content a stale rewrite shadows, said again after it: a tombstone written at once, a memory rewritten
     * (with the profile's vectors if it lacks them).
     */
    private Needed shadowed(ReembedPartition state, ConsumerRecord<String, byte[]> later) {
        if (later.value() == null) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(REEMBEDDED_FROM, Long.toString(later.offset()).getBytes(StandardCharsets.UTF_8));
            try {
                await(send(new ProducerRecord<>(topics.memories(), later.partition(), later.key(), null, headers)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while writing a tombstone again", e);
            }
            state.rewriting(later.key(), later.offset());
            return null;
        }
        MemoryRecord memory = parse(later);
        return memory == null ? null : new Needed(later, memory);
    }

    private static MemoryRecord parse(ConsumerRecord<String, byte[]> record) {
        try {
            return Json.MAPPER.readValue(record.value(), MemoryRecord.class);
        } catch (IOException | RuntimeException e) {
            // The index skips such a record too; nothing to re-embed.
            return null;
        }
    }

    /** Embeds the memories that need it (one batch per model) and writes each back with the new vectors. */
    private void rewrite(List<Needed> needed) throws InterruptedException {
        if (needed.isEmpty()) {
            return;
        }
        Map<EmbeddingModel, List<Needed>> byModel = new LinkedHashMap<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        int embedded = 0;
        for (Needed need : needed) {
            EmbeddingModel m = model.modelFor(need.memory().text());
            if (need.memory().hasVectorOf(m.id())) {
                // Said again as it is: it has the vectors already.
                sent.add(sendRewrite(need, need.memory()));
            } else {
                byModel.computeIfAbsent(m, k -> new ArrayList<>()).add(need);
                embedded++;
            }
        }
        for (Map.Entry<EmbeddingModel, List<Needed>> group : byModel.entrySet()) {
            EmbeddingModel m = group.getKey();
            List<Needed> members = group.getValue();
            List<String> texts = new ArrayList<>();
            for (Needed need : members) {
                texts.addAll(MemoryEmbedding.texts(need.memory()));
            }
            List<float[]> vectors = embed(m, texts);
            int next = 0;
            for (Needed need : members) {
                MemoryRecord memory = need.memory();
                List<float[]> own = vectors.subList(
                        next, next + MemoryEmbedding.texts(memory).size());
                next += own.size();
                MemoryRecord rewritten = memory.vector() == null
                        ? MemoryEmbedding.withVectors(memory, own, m.id())
                        : memory.withMoreVectors(MemoryEmbedding.modelVectors(memory, own, m.id()));
                sent.add(sendRewrite(need, rewritten));
            }
        }
        for (Future<RecordMetadata> future : sent) {
            await(future);
        }
        metrics.reembedded(embedded);
    }

    /** Writes {@code rewritten} in place of {@code need}'s record, naming its offset, and waits to read it back. */
    private Future<RecordMetadata> sendRewrite(Needed need, MemoryRecord rewritten) {
        ConsumerRecord<String, byte[]> source = need.record();
        RecordHeaders headers = new RecordHeaders();
        headers.add(REEMBEDDED_FROM, Long.toString(source.offset()).getBytes(StandardCharsets.UTF_8));
        ReembedPartition state = partitions.get(new TopicPartition(source.topic(), source.partition()));
        if (state != null) {
            state.rewriting(source.key(), source.offset());
        }
        return send(new ProducerRecord<>(
                topics.memories(), source.partition(), source.key(), Json.bytes(rewritten), headers));
    }

    /** The texts' vectors; a batch that keeps failing stops the loop (it is read again after a restart). */
    private List<float[]> embed(EmbeddingModel m, List<String> texts) throws InterruptedException {
        if (texts.isEmpty()) {
            return List.of();
        }
        try {
            return retry.call(
                    attempt -> m.embed(texts),
                    (attempt, e) -> LOG.warn(
                            "re-embedding batch failed size={} attempt={} error={}",
                            texts.size(),
                            attempt,
                            e.getMessage()));
        } catch (EmbeddingException e) {
            throw new IllegalStateException("cannot re-embed memories with " + m.id() + ": " + e.getMessage(), e);
        }
    }

    private Future<RecordMetadata> send(ProducerRecord<String, byte[]> record) {
        return producer.send(record);
    }

    private static void await(Future<RecordMetadata> future) throws InterruptedException {
        try {
            future.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // Not committed past: the records are read and rewritten again after a restart.
            throw new IllegalStateException("cannot write re-embedded memories: " + e.getMessage(), e);
        }
    }

    private void refreshEnds(Consumer<String, byte[]> consumer) {
        endOffsetsAt = System.nanoTime();
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions.keySet());
        ends.forEach((tp, end) -> {
            ReembedPartition state = partitions.get(tp);
            if (state != null) {
                state.endAt(end);
            }
        });
        partitions.forEach(
                (tp, s) -> metrics.reembedding(tp.partition(), s.scanned(), s.total(), profile.equals(s.lastSwitch())));
    }

    /**
     * Writes a switch to every partition read to its end with no rewrite unconfirmed, unless its last switch is
     * already to this profile.
     */
    private void switchCaughtUp() throws InterruptedException {
        for (Map.Entry<TopicPartition, ReembedPartition> entry : partitions.entrySet()) {
            TopicPartition tp = entry.getKey();
            ReembedPartition state = entry.getValue();
            if (profile.equals(state.lastSwitch()) || !state.caughtUp()) {
                continue;
            }
            await(send(new ProducerRecord<>(
                    topics.memories(),
                    tp.partition(),
                    EmbeddingSwitch.KEY,
                    EmbeddingSwitch.value(profile),
                    EmbeddingSwitch.headers(profile))));
            state.switched(profile);
            LOG.info(
                    "re-embedding done, index told to switch partition={} profile={} scanned={}",
                    tp.partition(),
                    profile,
                    state.position() - state.begin());
            metrics.reembedding(tp.partition(), state.scanned(), state.total(), true);
        }
    }

    @Override
    public void close() {
        loop.close();
        producer.close(Duration.ofSeconds(5));
    }
}
