package io.reme.prometheus;

import io.reme.indexstore.MemoryIndexRestores;
import io.reme.sink.WorkspaceWrites;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The page {@code GET /v1/pipeline} shows, read from the meters {@code /metrics} exports ({@link PrometheusMetrics}),
 * the Streams client's own input lag and the file sinks' state: what an operator reads first, in one place.
 */
public final class PipelineStatus {
    private PipelineStatus() {}

    /**
     * Totals of this instance since it started, summed over tenants (no tenant ids), and the input lag of the
     * partitions its Streams consumers read, by topic. Values Streams has not measured yet are left out.
     */
    public record Page(
            Map<String, Long> inputLag,
            Map<String, Long> deadLetters,
            Map<String, Map<String, Long>> llmRequests,
            Map<String, Map<String, Long>> llmCalls,
            Map<String, Long> compactions,
            long messagesIn,
            Long indexedMemories,
            PrometheusMetrics.Reembedding reembedding,
            IndexRestore indexRestore,
            Workspace workspace) {}

    /**
     * The file sinks of this process writing the workspace: {@code writable} false while some task's last write
     * failed (since {@code failingSince}), and the failed writes in all.
     */
    public record Workspace(boolean writable, Instant failingSince, long failedWrites) {
        static Workspace now() {
            WorkspaceWrites.Snapshot writes = WorkspaceWrites.snapshot();
            return new Workspace(writes.failingTasks() == 0, writes.failingSince(), writes.failures());
        }
    }

    /** The memory index restoring here: records of {@code memories} left to apply, over how many partitions. */
    public record IndexRestore(long remaining, int partitions) {}

    static Page of(PrometheusMetrics metrics) {
        MemoryIndexRestores restores = metrics.restores();
        return new Page(
                inputLag(metrics.streams()),
                metrics.deadLetterCounts(),
                metrics.requestCounts(),
                metrics.callCounts(),
                metrics.compactionCounts(),
                metrics.messagesIn(),
                metrics.indexedMemories(),
                metrics.reembedProgress(),
                restores == null
                        ? new IndexRestore(0, 0)
                        : new IndexRestore(restores.remaining(), restores.partitions()),
                Workspace.now());
    }

    private static Map<String, Long> inputLag(KafkaStreams streams) {
        Map<String, Long> lag = new TreeMap<>();
        if (streams == null) {
            return lag;
        }
        // Read from the client itself: the exported copies of per-partition metrics appear only at the binder's
        // next refresh (a minute), and the restore consumer's lag is not input lag.
        for (Metric metric : streams.metrics().values()) {
            MetricName name = metric.metricName();
            String topic = name.tags().get("topic");
            String client = name.tags().getOrDefault("client-id", "");
            if (!name.group().equals("consumer-fetch-manager-metrics")
                    || !name.name().equals("records-lag")
                    || topic == null
                    || !name.tags().containsKey("partition")
                    || client.endsWith("restore-consumer")
                    || !(metric.metricValue() instanceof Number value)
                    || !Double.isFinite(value.doubleValue())) {
                continue;
            }
            lag.merge(topic, Math.round(value.doubleValue()), Long::sum);
        }
        return lag;
    }
}
