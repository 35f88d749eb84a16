package io.reme.indexstore;

import io.reme.dlq.InputLimit;
import io.reme.erasure.Erasure;
import io.reme.llm.RequestSecret;
import io.reme.trace.RecordTracing;
import java.util.Optional;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Feeds the {@code memories} topic into the task's {@link MemoryIndexStore} (the store's only writer). An
 * erasure marker on the topic is {@link MemoryErasure}'s, the source's other child, which runs after this
 * one on each record and so sees the index with everything before the marker applied; the expunge request
 * that follows an erasure's tombstones is carried out here, first, and reported there.
 */
public final class MemoryIndexUpdater implements Processor<String, byte[], Void, Void> {
    public static final String STORE = "memory-index";
    public static final String SOURCE = "memories-source";
    public static final String NAME = "memory-index-updater";

    private final RecordTracing tracing;
    private ProcessorContext<Void, Void> context;
    private MemoryIndexStore store;

    private MemoryIndexUpdater(RecordTracing tracing) {
        this.tracing = tracing;
    }

    /** @param tracing a traced memory's index write in a span of its own */
    public static ProcessorSupplier<String, byte[], Void, Void> supplier(RecordTracing tracing) {
        return () -> new MemoryIndexUpdater(tracing);
    }

    /**
     * Adds the memory index to {@code topology}: a Lucene store per task, read-only, with the {@code memories}
     * topic as its changelog (no changelog of its own), fed by this processor; and {@link MemoryErasure} beside
     * it, which writes an erasure's tombstones back to the topic and keeps its reports.
     */
    public static void addTo(
            Topology topology, String memoriesTopic, InputLimit limit, RequestSecret secret, RecordTracing tracing) {
        topology.addReadOnlyStateStore(
                new MemoryIndexStoreBuilder(STORE, limit),
                SOURCE,
                new StringDeserializer(),
                new ByteArrayDeserializer(),
                memoriesTopic,
                NAME,
                supplier(tracing));
        MemoryErasure.addTo(topology, memoriesTopic, secret);
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.store = context.getStateStore(STORE);
        store.live();
        // Under exactly-once Streams never commits an active task's stores: the index commits itself.
        context.schedule(MemoryIndexStore.COMMIT_INTERVAL, PunctuationType.WALL_CLOCK_TIME, now -> store.commitNow());
    }

    @Override
    public void process(Record<String, byte[]> record) {
        Optional<RecordMetadata> metadata = context.recordMetadata();
        if (metadata.isPresent() && store.holds(metadata.get().offset())) {
            // Replayed after a crash: the index committed it before the task's transaction did.
            return;
        }
        if (MemoryErasure.isExpunge(record.headers())) {
            store.expungeDeletes();
        } else if (EmbeddingSwitch.isSwitch(record.headers())) {
            store.switchProfile(EmbeddingSwitch.profileOf(record.headers()));
        } else if (!Erasure.isErasure(record.headers())) {
            String key = record.key() == null ? "" : record.key();
            tracing.process(
                    record.headers(),
                    metadata.map(RecordMetadata::topic).orElse("unknown"),
                    key.substring(0, Math.max(0, key.indexOf('/'))),
                    _ -> store.apply(record.key(), record.value()));
        }
        metadata.ifPresent(m -> store.position(m.topic(), m.partition(), m.offset()));
    }
}
