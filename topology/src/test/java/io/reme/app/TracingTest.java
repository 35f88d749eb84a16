package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class TracingTest {
    @Test
    void tracesAreOffUnlessAnEndpointIsNamed() {
        assertSame(OpenTelemetry.noop(), Tracing.fromEnvironment(Map.of()));
        assertSame(
                OpenTelemetry.noop(),
                Tracing.fromEnvironment(
                        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318", "OTEL_SDK_DISABLED", "true")));
        assertNull(Tracing.tracesEndpoint(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")));
    }

    @Test
    void theTracesEndpointIsTheBaseOnesV1TracesUnlessGivenItself() {
        assertEquals(
                "http://collector:4318/v1/traces",
                Tracing.tracesEndpoint(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")));
        assertEquals(
                "http://collector:4318/custom",
                Tracing.tracesEndpoint(Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT",
                        "http://collector:4318",
                        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                        "http://collector:4318/custom")));
    }

    /** What the test's receiver was sent. */
    private record Received(String path, String contentType, String auth, byte[] body) {}

    @Test
    void spansAreSentOverOtlpHttpToTheEndpointWithItsHeaders() throws IOException {
        List<Received> received = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", exchange -> {
            received.add(new Received(
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRequestBody().readAllBytes()));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        try {
            OpenTelemetry openTelemetry = Tracing.fromEnvironment(Map.of(
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    "http://127.0.0.1:" + receiver.getAddress().getPort(),
                    "OTEL_EXPORTER_OTLP_HEADERS",
                    "Authorization=Bearer t0ken",
                    "OTEL_SERVICE_NAME",
                    "reme-test"));
            assertInstanceOf(OpenTelemetrySdk.class, openTelemetry);
            openTelemetry
                    .getTracer("test")
                    .spanBuilder("process reme.llm.requests")
                    .startSpan()
                    .end();
            // Closing sends what the batch holds.
            Tracing.close(openTelemetry);
        } finally {
            receiver.stop(0);
        }
        assertEquals(1, received.size());
        Received request = received.get(0);
        assertEquals("/v1/traces", request.path());
        assertEquals("application/x-protobuf", request.contentType());
        assertEquals("Bearer t0ken", request.auth());
        String body = new String(request.body(), StandardCharsets.ISO_8859_1);
        assertTrue(body.contains("process reme.llm.requests"), "the span's name is in the export");
        assertTrue(body.contains("reme-test"), "and the service's");
    }
}
