package io.reme.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DlqReason;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The metrics-only server of the {@code workers} process. */
class MetricsServerTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void servesTheRegistryOnMetricsAndNothingElse() throws Exception {
        try (PrometheusMetrics metrics = new PrometheusMetrics(Set.of());
                MetricsServer server = MetricsServer.start("127.0.0.1", 0, metrics)) {
            metrics.deadLetter(DlqReason.LLM_FAILED);
            String base = "http://127.0.0.1:" + server.port();
            HttpResponse<String> scrape = HTTP.send(
                    HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, scrape.statusCode());
            assertEquals(
                    PrometheusMetrics.CONTENT_TYPE,
                    scrape.headers().firstValue("Content-Type").orElse(""));
            assertEquals(1, PrometheusText.parse(scrape.body()).value("reme_dlq_records_total", "reason=LLM_FAILED"));

            HttpResponse<String> other = HTTP.send(
                    HttpRequest.newBuilder(URI.create(base + "/v1/search")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, other.statusCode());
            HttpResponse<String> post = HTTP.send(
                    HttpRequest.newBuilder(URI.create(base + "/metrics"))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
            assertTrue(post.headers().firstValue("Allow").orElse("").equals("GET"));
        }
    }
}
