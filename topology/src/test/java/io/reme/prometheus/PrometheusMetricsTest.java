package io.reme.prometheus;

import static io.reme.prometheus.PrometheusText.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DlqReason;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmStatus;
import io.reme.metrics.PipelineMetrics.CallOutcome;
import io.reme.metrics.PipelineMetrics.Compaction;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Prometheus side of the pipeline's events: names, bounded labels, zeros and histogram buckets. */
class PrometheusMetricsTest {
    private final PrometheusMetrics metrics = new PrometheusMetrics(Set.of("acme"));

    @AfterEach
    void close() {
        metrics.close();
    }

    @Test
    void onlyAllowListedTenantsGetTheirOwnLabelValue() {
        metrics.messageIn("acme", 12);
        metrics.messageIn("acme", 30);
        metrics.messageIn("globex", 7);
        metrics.messageIn("initech", 5);
        metrics.compaction("globex", Compaction.APPLIED);
        metrics.compaction("acme", Compaction.REQUESTED);

        String text = metrics.scrape();
        PrometheusText scrape = parse(text);
        assertEquals(2, scrape.value("reme_messages_in_total", "tenant=acme"));
        assertEquals(42, scrape.value("reme_tokens_counted_total", "tenant=acme"));
        assertEquals(2, scrape.value("reme_messages_in_total", "tenant=other"));
        assertEquals(12, scrape.value("reme_tokens_counted_total", "tenant=other"));
        assertEquals(1, scrape.value("reme_compactions_total", "tenant=other", "event=applied"));
        assertEquals(1, scrape.value("reme_compactions_total", "tenant=acme", "event=requested"));
        assertEquals(0, scrape.value("reme_compactions_total", "tenant=acme", "event=applied"));
        assertFalse(text.contains("globex") || text.contains("initech"), "tenants off the list never become labels");
    }

    @Test
    void everyOwnSeriesExistsAtZeroBeforeAnythingHappens() {
        PrometheusText scrape = parse(metrics.scrape());
        for (DlqReason reason : DlqReason.values()) {
            assertEquals(0, scrape.value("reme_dlq_records_total", "reason=" + reason.name()));
        }
        for (LlmKind kind : LlmKind.values()) {
            for (CallOutcome outcome : CallOutcome.values()) {
                assertEquals(0, scrape.value("reme_llm_calls_seconds_count", "kind=" + kind, "outcome=" + outcome));
            }
            for (LlmStatus status : LlmStatus.values()) {
                assertEquals(0, scrape.value("reme_llm_requests_total", "kind=" + kind, "status=" + status));
            }
        }
        for (Compaction event : Compaction.values()) {
            String label = "event=" + event.name().toLowerCase(Locale.ROOT);
            assertEquals(0, scrape.value("reme_compactions_total", "tenant=acme", label));
            assertEquals(0, scrape.value("reme_compactions_total", "tenant=other", label));
        }
        assertEquals(0, scrape.value("reme_search_seconds_count", "partial=false"));
        assertTrue(
                scrape.value("jvm_memory_used_bytes", "area=heap", "id=" + heapPool(scrape)) > 0,
                "JVM metrics are exported");
    }

    @Test
    void llmCallsAndSearchesFillTheirHistogramBuckets() {
        metrics.llmCall(LlmKind.COMPACT, CallOutcome.OK, Duration.ofMillis(300).toNanos());
        metrics.llmCall(LlmKind.COMPACT, CallOutcome.OK, Duration.ofSeconds(3).toNanos());
        metrics.llmCall(
                LlmKind.DIARY, CallOutcome.TIMEOUT, Duration.ofSeconds(120).toNanos());
        metrics.llmRequest(LlmKind.COMPACT, LlmStatus.OK);
        metrics.deadLetter(DlqReason.LLM_FAILED);
        metrics.search(Duration.ofMillis(4).toNanos(), false);
        metrics.search(Duration.ofMillis(40).toNanos(), true);

        PrometheusText scrape = parse(metrics.scrape());
        String[] ok = {"kind=COMPACT", "outcome=OK"};
        assertEquals(2, scrape.value("reme_llm_calls_seconds_count", ok));
        assertEquals(3.3, scrape.value("reme_llm_calls_seconds_sum", ok), 1e-9);
        assertEquals(0, scrape.value("reme_llm_calls_seconds_bucket", "kind=COMPACT", "outcome=OK", "le=0.25"));
        assertEquals(1, scrape.value("reme_llm_calls_seconds_bucket", "kind=COMPACT", "outcome=OK", "le=0.5"));
        assertEquals(1, scrape.value("reme_llm_calls_seconds_bucket", "kind=COMPACT", "outcome=OK", "le=2.5"));
        assertEquals(2, scrape.value("reme_llm_calls_seconds_bucket", "kind=COMPACT", "outcome=OK", "le=5.0"));
        assertEquals(2, scrape.value("reme_llm_calls_seconds_bucket", "kind=COMPACT", "outcome=OK", "le=+Inf"));
        assertEquals(1, scrape.value("reme_llm_calls_seconds_count", "kind=DIARY", "outcome=TIMEOUT"));
        assertEquals(1, scrape.value("reme_llm_requests_total", "kind=COMPACT", "status=OK"));
        assertEquals(1, scrape.value("reme_dlq_records_total", "reason=LLM_FAILED"));
        assertEquals(1, scrape.value("reme_search_seconds_bucket", "partial=false", "le=0.005"));
        assertEquals(0, scrape.value("reme_search_seconds_bucket", "partial=true", "le=0.025"));
        assertEquals(1, scrape.value("reme_search_seconds_bucket", "partial=true", "le=0.05"));
    }

    @Test
    void requestsAreTimedByRouteTemplateAndStatusClass() {
        String route = "GET /v1/sessions/{session}/context";
        metrics.request(route, 200, Duration.ofMillis(3).toNanos());
        metrics.request(route, 200, Duration.ofMillis(30).toNanos());
        metrics.request(route, 404, Duration.ofNanos(400_000).toNanos());

        PrometheusText scrape = parse(metrics.scrape());
        String[] ok = {"route=" + route, "status=2xx"};
        assertEquals(2, scrape.value("reme_http_requests_seconds_count", ok));
        assertEquals(0, scrape.value("reme_http_requests_seconds_bucket", "route=" + route, "status=2xx", "le=0.0025"));
        assertEquals(1, scrape.value("reme_http_requests_seconds_bucket", "route=" + route, "status=2xx", "le=0.005"));
        assertEquals(2, scrape.value("reme_http_requests_seconds_bucket", "route=" + route, "status=2xx", "le=0.05"));
        assertEquals(1, scrape.value("reme_http_requests_seconds_bucket", "route=" + route, "status=4xx", "le=5.0E-4"));
    }

    private static String heapPool(PrometheusText scrape) {
        return scrape.samples().keySet().stream()
                .filter(k -> k.startsWith("jvm_memory_used_bytes{area=\"heap\""))
                .map(k -> k.substring(k.indexOf("id=\"") + 4, k.indexOf('"', k.indexOf("id=\"") + 4)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no heap pool in the scrape"));
    }
}
