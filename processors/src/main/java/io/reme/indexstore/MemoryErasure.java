package io.reme.indexstore;

import io.reme.diary.EditSignature;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureReport;
import io.reme.erasure.ErasureStores;
import io.reme.llm.RequestSecret;
import io.reme.search.MemoryKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out erasures on the memory index's partition: an erasure marker on {@code memories} (signed,
 * see {@link Erasure}) makes the task tombstone every memory of the user (or tenant) its index holds, on
 * this same partition, then ask for the deleted documents to be expunged, and record an {@link
 * ErasureReport} of how many, in the transaction that consumes the marker. The tombstones reach the index
 * as any tombstone does, by the topic; the expunge request after them makes the index merge them out of
 * its files (deleted documents otherwise stay in segment files until a merge happens to rewrite them),
 * and its report then says {@code expunged}. A second child of the
 * index's source, next to {@link MemoryIndexUpdater}: the index store's processor may not write records.
 *
 * <p>A marker is never skipped as replayed (the updater skips records the index committed before the
 * task's transaction did): had the transaction that carried its tombstones aborted, the index still
 * holds those memories, so they are found and tombstoned again; if it committed, the marker is not
 * replayed at all.
 */
public final class MemoryErasure implements Processor<String, byte[], String, byte[]> {
    public static final String NAME = "memory-erasure";
    public static final String TOMBSTONES_SINK = "memory-erasure-tombstones-sink";
    /** The partition a tombstone goes to: the one whose index holds the memory, whatever the partitioning says. */
    static final String PARTITION_HEADER = "reme.memory.partition";
    /**
     * Marks the request, after an erasure's tombstones, to merge the deleted memories out of the index's
     * files; its value and key are the erasure request's, and so is its signature.
     */
    static final String EXPUNGE_HEADER = "reme.memory.expunge";

    private static final Logger LOG = LoggerFactory.getLogger(MemoryErasure.class);

    private final RequestSecret secret;
    private ProcessorContext<String, byte[]> context;
    private MemoryIndexStore store;
    private KeyValueStore<String, ErasureReport> reports;

    private MemoryErasure(RequestSecret secret) {
        this.secret = secret;
    }

    /** Adds this processor under the index's source, its report store and the sink of its tombstones. */
    static void addTo(Topology topology, String memoriesTopic, RequestSecret secret) {
        topology.addProcessor(NAME, () -> new MemoryErasure(secret), MemoryIndexUpdater.SOURCE);
        topology.connectProcessorAndStateStores(NAME, MemoryIndexUpdater.STORE);
        topology.addStateStore(ErasureStores.memories(), NAME);
        topology.addSink(
                TOMBSTONES_SINK,
                memoriesTopic,
                new StringSerializer(),
                new ByteArraySerializer(),
                new SamePartition(),
                NAME);
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
        this.store = context.getStateStore(MemoryIndexUpdater.STORE);
        this.reports = context.getStateStore(ErasureStores.MEMORIES);
    }

    /** Whether a record of {@code memories} is an erasure's request to expunge the deleted memories. */
    public static boolean isExpunge(Headers headers) {
        return headers != null && headers.lastHeader(EXPUNGE_HEADER) != null;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        boolean expunge = isExpunge(record.headers());
        if (!expunge && !Erasure.isErasure(record.headers())) {
            return;
        }
        int partition = context.recordMetadata().map(RecordMetadata::partition).orElse(-1);
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        if (partition < 0 || !EditSignature.valid(secret, record.headers(), key, record.value())) {
            LOG.warn("unsigned erasure record on the memories topic ignored partition={}", partition);
            return;
        }
        Erasure erasure;
        try {
            erasure = Erasure.fromJson(record.value());
        } catch (IOException | RuntimeException e) {
            LOG.warn("unreadable erasure record ignored partition={} error={}", partition, e.toString());
            return;
        }
        Instant at = Instant.ofEpochMilli(context.currentSystemTimeMs());
        if (expunge) {
            // The index processor, which runs first, has merged the deleted memories away.
            ErasureReport report = reports.get(erasure.key());
            if (report == null || !report.erasureId().equals(erasure.erasureId())) {
                return;
            }
            if (store.holdsDeletions()) {
                // Not said until true: the next erasure's expunge, or a merge, clears it; the status waits.
                LOG.warn("erasure not expunged yet erasureId={} partition={}", erasure.erasureId(), partition);
                return;
            }
            reports.put(erasure.key(), report.withExpunged(at));
            return;
        }
        ErasureReport done = ErasureReport.replaying(reports, erasure);
        if (done != null) {
            // Signed, but applied before (or a later one was): again, it would erase memories written since.
            LOG.warn(
                    "erasure request already applied ignored erasureId={} applied={} partition={}",
                    erasure.erasureId(),
                    done.erasureId(),
                    partition);
            return;
        }
        List<String> ids = store.idsOf(erasure.tenant(), erasure.user());
        Headers headers = new RecordHeaders();
        headers.add(PARTITION_HEADER, ByteBuffer.allocate(4).putInt(partition).array());
        for (String id : ids) {
            context.forward(new Record<>(new MemoryKey(erasure.tenant(), id).key(), null, record.timestamp(), headers));
        }
        // After the tombstones on the same partition, so the index has applied them when it sees this.
        Headers expungeHeaders = new RecordHeaders();
        expungeHeaders.add(
                PARTITION_HEADER, ByteBuffer.allocate(4).putInt(partition).array());
        expungeHeaders.add(EXPUNGE_HEADER, erasure.erasureId().getBytes(StandardCharsets.UTF_8));
        expungeHeaders.add(record.headers().lastHeader(EditSignature.HEADER));
        context.forward(new Record<>(record.key(), record.value(), record.timestamp(), expungeHeaders));
        reports.put(erasure.key(), ErasureReport.memories(erasure, partition, at, ids.size()));
        LOG.info(
                "memories erased tenant={} user={} erasureId={} partition={} memories={}",
                erasure.tenant(),
                erasure.user() == null ? Erasure.ALL_USERS : erasure.user(),
                erasure.erasureId(),
                partition,
                ids.size());
    }

    /** Sends an erasure's tombstone to the partition named in its header: the one its memory is indexed in. */
    private static final class SamePartition implements StreamPartitioner<String, byte[]> {
        // Still abstract in Kafka 4.4 (removed in 5.0); Streams calls the overload with headers below.
        @SuppressWarnings("removal")
        @Override
        public Optional<Set<Integer>> partitions(String topic, String key, byte[] value, int numPartitions) {
            throw new IllegalStateException("an erasure tombstone is partitioned by its header");
        }

        @Override
        public Optional<Set<Integer>> partitions(
                String topic, String key, byte[] value, Headers headers, int numPartitions) {
            Header header = headers == null ? null : headers.lastHeader(PARTITION_HEADER);
            if (header == null || header.value() == null || header.value().length != 4) {
                throw new IllegalStateException("an erasure tombstone without its partition: " + key);
            }
            int partition = ByteBuffer.wrap(header.value()).getInt();
            if (partition < 0 || partition >= numPartitions) {
                throw new IllegalStateException(
                        "erasure tombstone for partition " + partition + " of " + numPartitions);
            }
            return Optional.of(Set.of(partition));
        }
    }
}
