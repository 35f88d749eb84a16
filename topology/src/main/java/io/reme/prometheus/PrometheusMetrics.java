package io.reme.prometheus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reme.dlq.DlqReason;
import io.reme.indexstore.MemoryCount;
import io.reme.indexstore.MemoryIndexRestores;
import io.reme.indexstore.MemoryIndexUpdater;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmStatus;
import io.reme.metrics.PipelineMetrics;
import io.reme.sink.WorkspaceWrites;
import io.reme.topology.RocksDbMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;

/**
 * The instance's metrics registry and the Prometheus side of {@link PipelineMetrics}. Every series
 * of our own is registered at construction, at zero, so dashboards and alerts see a zero rather than
 * nothing; only the API's request timers appear with a route's first answer of a status class. The
 * {@code tenant} label is bounded: tenants on the configured allow-list get their own value, every
 * other tenant counts as {@value #OTHER_TENANT}. Thread-safe. Lifecycle: construct, {@link #bind}
 * the Kafka Streams client once it exists, {@link #close}.
 */
public final class PrometheusMetrics implements PipelineMetrics, AutoCloseable {
    /** The text exposition format {@link #scrape} renders. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    public static final String OTHER_TENANT = "other";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Map<DlqReason, Counter> deadLetters = new EnumMap<>(DlqReason.class);
    private final TenantMeters tenants;
    private final LlmMeters llm;
    private final HttpMeters http;

    private final ReembedMeters reembed;
    private final McpMeters mcp;
    private volatile MemoryIndexRestores restores;

    /** The Streams client bound for export, for the input lag {@link #pipeline()} reads; null before. */
    private volatile KafkaStreams streams;

    /** The tenant quotas a request can be refused for ({@code quota} label of {@code reme.http.throttled}). */
    public static final List<String> QUOTAS = List.of("requests", "messages");

    /** @param labelledTenants tenants whose id may appear as a label value; all others are {@value #OTHER_TENANT} */
    public PrometheusMetrics(Set<String> labelledTenants) {
        tenants = new TenantMeters(registry, labelledTenants);
        for (DlqReason reason : DlqReason.values()) {
            deadLetters.put(
                    reason,
                    Counter.builder("reme.dlq.records")
                            .description("Records sent to the dead-letter topic, by reason")
                            .tag("reason", reason.name())
                            .register(registry));
        }
        llm = new LlmMeters(registry);
        http = new HttpMeters(registry);
        reembed = new ReembedMeters(registry);
        mcp = new McpMeters(registry);
        FunctionCounter.builder(
                        "reme.workspace.write.failures",
                        this,
                        m -> WorkspaceWrites.snapshot().failures())
                .description("Writes of the file sinks in this process that failed (a full or read-only disk);"
                        + " each is retried until it succeeds")
                .register(registry);
        Gauge.builder(
                        "reme.workspace.write.failing",
                        this,
                        m -> WorkspaceWrites.snapshot().failingTasks())
                .description("File sink tasks in this process whose last write failed: 0 when the workspace is"
                        + " writable")
                .register(registry);
        for (MeterBinder binder : List.of(
                new ClassLoaderMetrics(),
                new JvmMemoryMetrics(),
                new JvmThreadMetrics(),
                new ProcessorMetrics(),
                new UptimeMetrics())) {
            binder.bindTo(registry);
        }
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        closeables.add(gc);
    }

    static Duration[] seconds(double... values) {
        Duration[] durations = new Duration[values.length];
        for (int i = 0; i < values.length; i++) {
            durations[i] = Duration.ofNanos(Math.round(values[i] * 1e9));
        }
        return durations;
    }

    /**
     * Exports the Kafka Streams client's metrics (threads, tasks, stores, and the embedded clients')
     * and the number of memories in this instance's active index partitions.
     */
    public void bind(KafkaStreams streams) {
        this.streams = streams;
        KafkaStreamsMetrics streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(registry);
        closeables.add(streamsMetrics);
        Gauge.builder("reme.index.memories", streams, PrometheusMetrics::indexedMemories)
                .description("Memories in the search index partitions this instance serves (active tasks)")
                .register(registry);
    }

    /** Exports how much of the memory index this instance is still restoring (an empty disk, a new task). */
    public void indexRestores(MemoryIndexRestores restores) {
        this.restores = restores;
        Gauge.builder("reme.index.restore.remaining", restores, MemoryIndexRestores::remaining)
                .description("Records of memories the restoring partitions of the memory index have yet to apply; "
                        + "searches of those partitions report them missing until they are done")
                .register(registry);
        Gauge.builder("reme.index.restore.partitions", restores, MemoryIndexRestores::partitions)
                .description("Partitions whose memory index is restoring on this instance")
                .register(registry);
    }

    /** Exports the shared RocksDB budget: its capacity, what it holds (memtables included) and what is pinned. */
    public void rocksDb(RocksDbMemory memory) {
        Gauge.builder("reme.rocksdb.memory.capacity", memory, RocksDbMemory::capacityBytes)
                .description("Native memory all RocksDB stores of this instance share (block cache with memtables)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("reme.rocksdb.memory.used", memory, RocksDbMemory::usageBytes)
                .description("Native memory the RocksDB stores hold now: cached blocks, index and filter blocks, "
                        + "memtables")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("reme.rocksdb.memory.pinned", memory, RocksDbMemory::pinnedBytes)
                .description("Of reme.rocksdb.memory.used, what readers hold or is pinned and cannot be evicted")
                .baseUnit("bytes")
                .register(registry);
    }

    /** Sum over the local active partitions; NaN while Streams cannot answer (starting, rebalancing). */
    private static double indexedMemories(KafkaStreams streams) {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return Double.NaN;
        }
        StateQueryResult<Integer> result = streams.query(StateQueryRequest.inStore(MemoryIndexUpdater.STORE)
                .withQuery(new MemoryCount())
                .requireActive());
        long total = 0;
        for (QueryResult<Integer> partition : result.getPartitionResults().values()) {
            if (!partition.isSuccess()) {
                return Double.NaN;
            }
            total += partition.getResult();
        }
        return total;
    }

    /** Every metric in the Prometheus text format. */
    public String scrape() {
        return registry.scrape();
    }

    /** Registers the call counters of the MCP server's tools at zero, so every series exists from start-up. */
    public void mcpTools(Collection<String> tools) {
        mcp.tools(tools);
    }

    /** One MCP tool call answered; {@code tool} is one registered by {@link #mcpTools}. */
    public void mcpToolCall(String tool, boolean failed) {
        mcp.call(tool, failed);
    }

    @Override
    public void reembedding(int partition, long scanned, long total, boolean switched) {
        reembed.partition(partition, scanned, total, switched);
    }

    @Override
    public void reembedded(int memories) {
        reembed.reembedded(memories);
    }

    /**
     * Where the change to the configured embedding model stands on this instance's re-embedder: the share of
     * offsets read (1 when nothing is left and every partition switched), offsets left, partitions switched of
     * those it reads, and memories re-embedded since start.
     */
    public record Reembedding(
            double progress, long remaining, int switchedPartitions, int partitions, long reembedded) {}

    public Reembedding reembedProgress() {
        return reembed.progress();
    }

    public void search(long nanos, boolean partial) {
        http.search(nanos, partial);
    }

    /**
     * An answered API request: {@code route} is its method and URI template ({@code GET
     * /v1/sessions/{session}/context}), {@code nanos} the time from its first bytes to its answer.
     */
    public void request(String route, int status, long nanos) {
        http.request(route, status, nanos);
    }

    @Override
    public void messageIn(String tenant, int tokens) {
        tenants.messageIn(tenant, tokens);
    }

    @Override
    public void compaction(String tenant, Compaction event) {
        tenants.compaction(tenant, event);
    }

    /** A request refused because the tenant was past {@code quota} (one of {@link #QUOTAS}). */
    public void throttled(String tenant, String quota) {
        tenants.throttled(tenant, quota);
    }

    @Override
    public void deadLetter(DlqReason reason) {
        deadLetters.get(reason).increment();
    }

    @Override
    public void llmCall(LlmKind kind, CallOutcome outcome, long nanos) {
        llm.call(kind, outcome, nanos);
    }

    @Override
    public void llmRequest(LlmKind kind, LlmStatus status) {
        llm.request(kind, status);
    }

    /** What {@code GET /v1/pipeline} shows, read from these meters ({@link PipelineStatus}). */
    public PipelineStatus.Page pipeline() {
        return PipelineStatus.of(this);
    }

    /** Dead letters since start, by reason. */
    Map<String, Long> deadLetterCounts() {
        Map<String, Long> dead = new TreeMap<>();
        deadLetters.forEach((reason, counter) -> dead.put(reason.name(), Math.round(counter.count())));
        return dead;
    }

    Map<String, Map<String, Long>> requestCounts() {
        return llm.requestCounts();
    }

    Map<String, Map<String, Long>> callCounts() {
        return llm.callCounts();
    }

    Map<String, Long> compactionCounts() {
        return tenants.compactionCounts();
    }

    long messagesIn() {
        return tenants.messagesIn();
    }

    /** The memories the local index holds, or null while it cannot say. */
    Long indexedMemories() {
        Gauge index = registry.find("reme.index.memories").gauge();
        return index == null || !Double.isFinite(index.value()) ? null : Math.round(index.value());
    }

    /** The memory index's restore here, or null when none was bound. */
    MemoryIndexRestores restores() {
        return restores;
    }

    /** The Streams client bound for export, or null before. */
    KafkaStreams streams() {
        return streams;
    }

    @Override
    public void close() {
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                // Closing only stops background refreshes; nothing to recover.
            }
        }
        registry.close();
    }
}
