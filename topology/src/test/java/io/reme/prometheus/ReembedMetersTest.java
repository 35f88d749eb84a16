package io.reme.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** Where a change of embedding model stands, summed over the re-embedder's partitions, as the gauges say it. */
class ReembedMetersTest {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReembedMeters meters = new ReembedMeters(registry);

    @Test
    void nothingToReadAndNothingReadIsDone() {
        assertEquals(new PrometheusMetrics.Reembedding(1, 0, 0, 0, 0), meters.progress());
    }

    @Test
    void progressIsTheShareReadAndStopsShortOfOneUntilEveryPartitionSwitched() {
        meters.partition(0, 30, 100, false);
        meters.partition(1, 50, 100, false);
        meters.reembedded(12);
        assertEquals(new PrometheusMetrics.Reembedding(0.4, 120, 0, 2, 12), meters.progress());

        meters.partition(0, 100, 100, true);
        meters.partition(1, 100, 100, false);
        assertEquals(0.99, meters.progress().progress(), "read to the end, one partition not switched yet");
        meters.partition(1, 100, 100, true);
        assertEquals(new PrometheusMetrics.Reembedding(1, 0, 2, 2, 12), meters.progress());
        PrometheusText scrape = PrometheusText.parse(registry.scrape());
        assertEquals(1, scrape.value("reme_reembed_progress"));
        assertEquals(0, scrape.value("reme_reembed_remaining"));
        assertEquals(2, scrape.value("reme_reembed_partitions_switched"));
        assertEquals(12, scrape.value("reme_reembed_memories_total"));
    }
}
