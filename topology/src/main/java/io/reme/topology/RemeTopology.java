package io.reme.topology;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEditProcessor;
import io.reme.dlq.InputLimit;
import io.reme.erasure.ErasureBroadcast;
import io.reme.erasure.ErasureStores;
import io.reme.indexstore.MemoryIndexUpdater;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.JsonSerde;
import io.reme.llm.LlmRequest;
import io.reme.metrics.PipelineMetrics;
import io.reme.search.MemoryRecord;
import io.reme.session.ArchivedMessage;
import io.reme.session.MessageProcessor;
import io.reme.session.ResultProcessor;
import io.reme.session.SessionNodes;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantsUpdater;
import io.reme.tokens.TokenCounter;
import io.reme.topic.RecordLimits;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Builds the application's topology. The session sub-topology reads {@code messages} and
 * {@code llm.results} as raw bytes (so malformed input can be dead-lettered, not crash the
 * deserialiser), keeps the window in six logged stores shared by its two processors, and writes
 * LLM requests, archived dialog, full tool outputs and dead letters. The diary sub-topology is
 * the single writer of diary documents (versioned edits in, documents and their changed chunks out);
 * the memory index keeps a Lucene index per task of the {@code memories} topic; the tenants' global
 * store holds every tenant, API key hash and policy on every instance.
 */
public final class RemeTopology {
    private RemeTopology() {}

    public static Topology build(Topics topics, SessionSettings settings, TokenCounter tokens) {
        return build(topics, settings, tokens, new MemoryPartitioning(1));
    }

    public static Topology build(
            Topics topics, SessionSettings settings, TokenCounter tokens, MemoryPartitioning memories) {
        return build(topics, settings, tokens, memories, PipelineMetrics.NONE);
    }

    public static Topology build(
            Topics topics,
            SessionSettings settings,
            TokenCounter tokens,
            MemoryPartitioning memories,
            PipelineMetrics metrics) {
        return build(
                topics,
                settings,
                tokens,
                memories,
                metrics,
                RecordLimits.forInput(settings.input().maxMessageBytes()),
                RecordTracing.OFF);
    }

    /**
     * @param memories how memories are spread over partitions (by tenant, in buckets)
     * @param metrics where the processors report messages, tokens, compactions and dead letters
     * @param limits the record limit every sink enforces and every changelog is configured for; inputs are
     *        checked against {@code settings.input().maxMessageBytes()}
     * @param tracing the spans of traced records: a message, a result, a diary edit, a memory's index write
     */
    public static Topology build(
            Topics topics,
            SessionSettings settings,
            TokenCounter tokens,
            MemoryPartitioning memories,
            PipelineMetrics metrics,
            RecordLimits limits,
            RecordTracing tracing) {
        Topology topology = new Topology();
        Map<String, String> changelog = limits.changelogConfig();
        int maxRecord = limits.recordBytes();
        ByteArrayDeserializer bytesIn = new ByteArrayDeserializer();
        topology.addSource(SessionNodes.MESSAGES_SOURCE, bytesIn, bytesIn, topics.messages());
        topology.addSource(SessionNodes.RESULTS_SOURCE, bytesIn, bytesIn, topics.llmResults());
        topology.addProcessor(
                SessionNodes.MESSAGE_PROCESSOR,
                MessageProcessor.supplier(settings, tokens, metrics, TenantEntries.STORE, tracing),
                SessionNodes.MESSAGES_SOURCE);
        topology.addProcessor(
                SessionNodes.RESULT_PROCESSOR,
                ResultProcessor.supplier(settings, tokens, metrics, TenantEntries.STORE, tracing),
                SessionNodes.RESULTS_SOURCE);
        String[] both = {SessionNodes.MESSAGE_PROCESSOR, SessionNodes.RESULT_PROCESSOR};
        for (StoreBuilder<?> store : SessionStores.all()) {
            topology.addStateStore(store.withLoggingEnabled(changelog), both);
        }

        // What each partition removed for an erasure request, for the API to report.
        topology.addStateStore(ErasureStores.sessions().withLoggingEnabled(changelog), SessionNodes.MESSAGE_PROCESSOR);

        StringSerializer keys = new StringSerializer();
        topology.addSink(
                SessionNodes.REQUESTS_SINK,
                topics.llmRequests(),
                keys,
                limited(JsonSerde.of(LlmRequest.class).serializer(), maxRecord),
                both);
        // Erasure markers reach every partition, so the dialog file sink deletes after all that was archived.
        topology.addSink(
                SessionNodes.DIALOG_SINK,
                topics.dialog(),
                keys,
                limited(JsonSerde.of(ArchivedMessage.class).serializer(), maxRecord),
                new ErasureBroadcast(),
                both);
        topology.addSink(
                SessionNodes.TOOL_RESULTS_SINK,
                topics.toolResults(),
                keys,
                limited(new StringSerializer(), maxRecord),
                both);
        topology.addSink(
                SessionNodes.DLQ_SINK,
                topics.dlq(),
                untyped(new ByteArraySerializer()),
                limited(new ByteArraySerializer(), maxRecord),
                both);

        // Diary documents: one writer per document key, versioned edits.
        topology.addSource(DiaryEditProcessor.SOURCE, bytesIn, bytesIn, topics.diaryEdits());
        topology.addProcessor(
                DiaryEditProcessor.NAME,
                DiaryEditProcessor.supplier(
                        metrics, new InputLimit(settings.input().maxMessageBytes()), settings.requestSecret(), tracing),
                DiaryEditProcessor.SOURCE);
        topology.addStateStore(
                Stores.keyValueStoreBuilder(
                                Stores.persistentKeyValueStore(DiaryEditProcessor.STORE),
                                Serdes.String(),
                                JsonSerde.of(DiaryDocument.class))
                        .withLoggingEnabled(changelog),
                DiaryEditProcessor.NAME);
        topology.addStateStore(ErasureStores.documents().withLoggingEnabled(changelog), DiaryEditProcessor.NAME);
        topology.addSink(
                DiaryEditProcessor.SINK,
                topics.diary(),
                keys,
                limited(JsonSerde.of(DiaryDocument.class).serializer(), maxRecord),
                DiaryEditProcessor.NAME);
        topology.addSink(
                DiaryEditProcessor.DLQ_SINK,
                topics.dlq(),
                untyped(new ByteArraySerializer()),
                limited(new ByteArraySerializer(), maxRecord),
                DiaryEditProcessor.NAME);
        topology.addSink(
                DiaryEditProcessor.CHUNKS_SINK,
                topics.memoriesPending(),
                keys,
                limited(JsonSerde.of(MemoryRecord.class).serializer(), maxRecord),
                memories,
                DiaryEditProcessor.NAME);

        // The memory index: a Lucene store per task, the memories topic as its changelog.
        MemoryIndexUpdater.addTo(
                topology,
                topics.memories(),
                new InputLimit(settings.input().maxMessageBytes()),
                settings.requestSecret(),
                tracing);

        // Tenants, keys and policies: every instance keeps all of them (a global store), so any
        // instance checks any key at once and sees an admin's change within a poll of the topic.
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(
                                Stores.persistentKeyValueStore(TenantEntries.STORE),
                                Serdes.String(),
                                Serdes.ByteArray())
                        .withLoggingDisabled(),
                TenantEntries.SOURCE,
                new StringDeserializer(),
                new ByteArrayDeserializer(),
                topics.tenants(),
                TenantEntries.UPDATER,
                TenantsUpdater.supplier());
        return topology;
    }

    /** A sink's value serialiser that refuses values over the record limit before the producer sees them. */
    private static Serializer<Object> limited(Serializer<?> serializer, int maxBytes) {
        return new LimitedSerializer(untyped(serializer), maxBytes);
    }

    /** Processors forward several value types; each sink's serialiser only ever sees its own. */
    @SuppressWarnings("unchecked")
    private static Serializer<Object> untyped(Serializer<?> serializer) {
        return (Serializer<Object>) serializer;
    }
}
