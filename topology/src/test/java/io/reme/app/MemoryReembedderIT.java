package io.reme.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.admin.TopicProvisioner;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.indexstore.EmbeddingSwitch;
import io.reme.json.Json;
import io.reme.metrics.PipelineMetrics;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.topic.Topics;
import io.reme.worker.MemoryReembedder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The re-embedder on the in-JVM broker, with fake models (what is tested is the log, not the vectors): a change of
 * model stopped by a crash resumes where it was rather than from the start, writes the switch only once every memory
 * carries both models' vectors, reports its progress, and never lets a rewrite undo an edit made meanwhile.
 */
@Tag("integration")
class MemoryReembedderIT extends WithBroker {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final int PARTITIONS = 2;

    /** Three numbers per text; fails, not retryably, once it has embedded {@code failAfter} texts (a crash). */
    private static final class NewModel implements EmbeddingModel {
        final AtomicInteger texts = new AtomicInteger();
        private final int failAfter;
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release;

        NewModel(int failAfter, CountDownLatch release) {
            this.failAfter = failAfter;
            this.release = release;
        }

        @Override
        public String id() {
            return "new";
        }

        @Override
        public int dimensions() {
            return 3;
        }

        @Override
        public List<float[]> embed(List<String> batch) throws EmbeddingException {
            entered.countDown();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new EmbeddingException("never released", false, null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EmbeddingException("interrupted", false, e);
            }
            if (texts.addAndGet(batch.size()) > failAfter) {
                throw new EmbeddingException("the process died", false, null);
            }
            return batch.stream().map(t -> new float[] {t.length(), 1, 2}).toList();
        }

        @Override
        public void close() {}
    }

    /** What the re-embedder reported: the last progress of each partition, memories re-embedded. */
    private static final class Recorded implements PipelineMetrics {
        final Map<Integer, long[]> last = new ConcurrentHashMap<>();
        final AtomicInteger reembedded = new AtomicInteger();
        volatile boolean movedBeforeDone;

        @Override
        public void reembedding(int partition, long scanned, long total, boolean switched) {
            last.put(partition, new long[] {scanned, total, switched ? 1 : 0});
            if (scanned > 0 && scanned < total) {
                movedBeforeDone = true;
            }
        }

        @Override
        public void reembedded(int memories) {
            reembedded.addAndGet(memories);
        }
    }

    private static Topics topics(String prefix) throws Exception {
        Topics topics = new Topics(prefix);
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            TopicProvisioner.ensure(admin, topics, topics.specs(PARTITIONS, 1 << 20, 1 << 24, Duration.ofDays(3)), -1);
        }
        return topics;
    }

    private static MemoryRecord old(int i, String text) {
        return MemoryRecord.of("m" + i, "acme", "alice", null, MemoryType.PERSONAL, text, T0)
                .withVector(new float[] {1, i + 1}, "old");
    }

    /** Writes the memories and waits for each to be acknowledged, so a failed write fails here and not later. */
    private static void write(Topics topics, List<MemoryRecord> memories) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (MemoryRecord memory : memories) {
                int i = Integer.parseInt(memory.id().substring(1));
                sent.add(producer.send(new ProducerRecord<>(
                        topics.memories(),
                        i % PARTITIONS,
                        ("acme/" + memory.id()).getBytes(StandardCharsets.UTF_8),
                        Json.bytes(memory))));
            }
            for (Future<RecordMetadata> future : sent) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static MemoryReembedder start(Topics topics, String group, EmbeddingModel model, PipelineMetrics metrics) {
        return MemoryReembedder.start(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                topics,
                group,
                model,
                metrics);
    }

    private static List<ConsumerRecord<String, byte[]>> all(Topics topics) {
        return all(topics, 1);
    }

    /** The whole topic, read until at least {@code atLeast} records came (what is known to be there). */
    private static List<ConsumerRecord<String, byte[]>> all(Topics topics, int atLeast) {
        return TestKafka.readCommitted(broker.bootstrapServers(), topics.memories(), atLeast, Duration.ofSeconds(60));
    }

    /** Records and the highest offset read, by partition: what a failed count says about the read. */
    private static String perPartition(List<ConsumerRecord<String, byte[]>> records) {
        Map<Integer, String> out = new TreeMap<>();
        records.stream()
                .collect(Collectors.groupingBy(ConsumerRecord::partition))
                .forEach((p, rs) -> out.put(
                        p,
                        rs.size() + " records to offset "
                                + rs.stream()
                                        .mapToLong(ConsumerRecord::offset)
                                        .max()
                                        .orElse(-1)));
        return out.toString();
    }

    /** The switches to {@code profile} on the topic, by partition. */
    private static Map<Integer, Long> switches(List<ConsumerRecord<String, byte[]>> records, String profile) {
        Map<Integer, Long> out = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            if (EmbeddingSwitch.isSwitch(r.headers()) && profile.equals(EmbeddingSwitch.profileOf(r.headers()))) {
                out.putIfAbsent(r.partition(), r.offset());
            }
        }
        return out;
    }

    /** Each memory's last record, and its offset. */
    private static Map<String, ConsumerRecord<String, byte[]>> latest(List<ConsumerRecord<String, byte[]>> records) {
        Map<String, ConsumerRecord<String, byte[]>> out = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            if (!EmbeddingSwitch.isSwitch(r.headers())) {
                out.put(r.key(), r);
            }
        }
        return out;
    }

    private static MemoryRecord memory(ConsumerRecord<String, byte[]> record) throws IOException {
        return Json.MAPPER.readValue(record.value(), MemoryRecord.class);
    }

    @Test
    void aChangeStoppedByACrashResumesAndSwitchesOnceEveryMemoryHasTheNewVectors() throws Exception {
        Topics topics = topics("reemb.");
        int n = 600;
        List<MemoryRecord> memories = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            memories.add(old(i, "memory number " + i));
        }
        write(topics, memories);

        // First run: the model fails after 300 texts, in the second poll's batch (a poll brings up to 256 records).
        NewModel failing = new NewModel(300, new CountDownLatch(0));
        Recorded first = new Recorded();
        try (MemoryReembedder _ = start(topics, "reemb-it", failing, first)) {
            await("the first run to die mid-change")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> failing.texts.get() > 300);
        }
        assertTrue(first.reembedded.get() >= 200, "the first run re-embedded some: " + first.reembedded.get());
        assertTrue(first.reembedded.get() < n, "and stopped before the end: " + first.reembedded.get());
        assertEquals(Map.of(), switches(all(topics), "new"), "no switch while memories lack the new vectors");

        // Second run, same group: from where the first stopped, not from the start.
        NewModel good = new NewModel(Integer.MAX_VALUE, new CountDownLatch(0));
        Recorded second = new Recorded();
        try (MemoryReembedder _ = start(topics, "reemb-it", good, second)) {
            await("a switch on every partition")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> switches(all(topics), "new").size() == PARTITIONS);
            await("the progress of both partitions reported as switched")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> second.last.size() == PARTITIONS
                            && second.last.values().stream().allMatch(p -> p[2] == 1 && p[0] == p[1]));
        }
        assertTrue(
                good.texts.get() <= n - first.reembedded.get(),
                "resumed, no memory embedded twice: the second run embedded " + good.texts.get() + " of " + n
                        + " after the first's " + first.reembedded.get());
        assertTrue(second.movedBeforeDone, "the progress moved while re-embedding");

        // Every memory's first record, at least one rewrite of each, and a switch per partition.
        List<ConsumerRecord<String, byte[]>> records = all(topics, 2 * n + PARTITIONS);
        Map<Integer, Long> switched = switches(records, "new");
        Map<String, ConsumerRecord<String, byte[]>> latest = latest(records);
        assertEquals(n, latest.size(), () -> "memories on the topic; read " + perPartition(records));
        for (ConsumerRecord<String, byte[]> last : latest.values()) {
            MemoryRecord memory = memory(last);
            assertTrue(memory.hasVectorOf("old") && memory.hasVectorOf("new"), "both models' vectors: " + memory);
            assertTrue(last.offset() < switched.get(last.partition()), "re-embedded before its partition's switch");
        }
    }

    @Test
    void anEditMadeWhileItsMemoryIsReembeddedIsNotUndone() throws Exception {
        Topics topics = topics("reedit.");
        write(topics, List.of(old(0, "likes green tea"), old(2, "walks daily")));
        CountDownLatch edited = new CountDownLatch(1);
        NewModel model = new NewModel(Integer.MAX_VALUE, edited);
        try (MemoryReembedder _ = start(topics, "reedit-it", model, PipelineMetrics.NONE)) {
            assertTrue(model.entered.await(60, TimeUnit.SECONDS), "the re-embedder started embedding");
            // The edit lands after the record being re-embedded was read and before its rewrite: written by an
            // instance already on the new model, so it needs no re-embedding of its own.
            write(
                    topics,
                    List.of(MemoryRecord.of("m0", "acme", "alice", null, MemoryType.PERSONAL, "likes coffee", T0)
                            .withVector(new float[] {9, 9, 9}, "new")));
            edited.countDown();
            await("a switch on every partition")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> switches(all(topics), "new").size() == PARTITIONS);
        }
        // Two memories, the edit, and a switch per partition.
        Map<String, ConsumerRecord<String, byte[]>> latest = latest(all(topics, 3 + PARTITIONS));
        assertEquals("likes coffee", memory(latest.get("acme/m0")).text(), "the edit is the topic's last word");
        assertEquals("walks daily", memory(latest.get("acme/m2")).text());
        assertTrue(memory(latest.get("acme/m2")).hasVectorOf("new"));
    }
}
