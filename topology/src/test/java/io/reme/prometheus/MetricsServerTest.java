package io.reme.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.app.ApiClient;
import io.reme.dlq.DlqReason;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The metrics-only server of the {@code workers} process. */
class MetricsServerTest {
    @Test
    void servesTheRegistryOnMetricsAndNothingElse() throws Exception {
        try (PrometheusMetrics metrics = new PrometheusMetrics(Set.of());
                MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics)) {
            metrics.deadLetter(DlqReason.LLM_FAILED);
            String base = "http://127.0.0.1:" + server.port();
            ApiClient.Response scrape = ApiClient.get(base + "/metrics", null);
            assertEquals(200, scrape.status());
            assertEquals(PrometheusMetrics.CONTENT_TYPE, scrape.contentType());
            assertEquals(1, PrometheusText.parse(scrape.text()).value("reme_dlq_records_total", "reason=LLM_FAILED"));

            ApiClient.Response other = ApiClient.get(base + "/v1/search", null);
            assertEquals(404, other.status());
            ApiClient.Response post = ApiClient.post(base + "/metrics", null, null);
            assertEquals(405, post.status());
            assertEquals("GET", post.allow());
        }
    }
}
