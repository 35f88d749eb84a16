package io.reme.prometheus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The re-embedder's meters during a change of embedding model: where each partition's read stands, and the sum. */
final class ReembedMeters {
    /** Per partition: offsets read, offsets to read, switched (1) or not (0). */
    private final Map<Integer, long[]> partitions = new ConcurrentHashMap<>();

    private final Counter reembedded;

    ReembedMeters(MeterRegistry registry) {
        reembedded = Counter.builder("reme.reembed.memories")
                .description("Memories given the configured embedding model's vectors after a change of model")
                .register(registry);
        Gauge.builder("reme.reembed.progress", this, m -> m.progress().progress())
                .description("Share of the memories written before the change of embedding model that the"
                        + " re-embedder has read, over its partitions (1 when every partition is read and switched)")
                .register(registry);
        Gauge.builder("reme.reembed.remaining", this, m -> m.progress().remaining())
                .description("Offsets of the memories topic written before the change that the re-embedder has"
                        + " still to read")
                .register(registry);
        Gauge.builder(
                        "reme.reembed.partitions.switched",
                        this,
                        m -> m.progress().switchedPartitions())
                .description("Partitions of the memories topic whose index was told to switch to the configured model")
                .register(registry);
    }

    void partition(int partition, long scanned, long total, boolean switched) {
        partitions.put(partition, new long[] {scanned, total, switched ? 1 : 0});
    }

    void reembedded(int memories) {
        reembedded.increment(memories);
    }

    PrometheusMetrics.Reembedding progress() {
        long scanned = 0;
        long total = 0;
        int switched = 0;
        for (long[] p : partitions.values()) {
            scanned += p[0];
            total += p[1];
            switched += (int) p[2];
        }
        int count = partitions.size();
        double progress = total == 0 ? (switched == count ? 1 : 0) : (double) scanned / total;
        if (switched < count) {
            // Not done until every partition switched: a topic read to its end but not switched yet is 99 %, not 100.
            progress = Math.min(progress, 0.99);
        }
        return new PrometheusMetrics.Reembedding(
                progress, Math.max(0, total - scanned), switched, count, Math.round(reembedded.count()));
    }
}
