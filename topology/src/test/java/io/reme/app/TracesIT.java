package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.sun.net.httpserver.HttpServer;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Traces end to end: the application in a child JVM with {@code OTEL_EXPORTER_OTLP_ENDPOINT} naming an OTLP/HTTP
 * receiver this test runs; messages posted with a W3C {@code traceparent} cross the window's threshold, and the
 * worker's span for the compaction they cause and its LLM task's span reach the receiver in the poster's trace.
 */
@Tag("integration")
class TracesIT extends WithBroker {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    @Test
    void aPostedMessagesTraceReachesTheCollectorWithTheWorkersSpans() throws Exception {
        List<String> exports = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/v1/traces", exchange -> {
            // Protobuf, read as Latin-1 so that every byte is one char: span names and raw ids can be found in it.
            exports.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        Path config = dir.resolve("traces.properties");
        Files.writeString(config, "");
        Map<String, String> env = environment();
        env.put(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:" + receiver.getAddress().getPort());
        env.put("OTEL_SERVICE_NAME", "reme-traces-it");
        try (AppProcess app = CrashRestartIT.child(dir.resolve("app"), config, env, dir.resolve("traces-app.log"))) {
            String url = app.awaitReady(Duration.ofSeconds(90));
            post(url);
            String traceId = new String(HexFormat.of().parseHex(TRACE_ID), StandardCharsets.ISO_8859_1);
            Awaitility.await("the worker's and its LLM task's spans of trace " + TRACE_ID)
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        app.requireAlive();
                        return seen(exports, traceId, "process reme.llm.requests")
                                && seen(exports, traceId, " offline-extractive");
                    });
        } finally {
            receiver.stop(0);
        }
        assertTrue(exports.stream().anyMatch(e -> e.contains("reme-traces-it")), "the service is named");
    }

    private static boolean seen(List<String> exports, String traceId, String name) {
        return exports.stream().anyMatch(e -> e.contains(traceId) && e.contains(name));
    }

    /** Twelve messages of 300 words, in one request carrying the trace: over the small window's 2,660 tokens. */
    private static void post(String url) throws Exception {
        ArrayNode batch = Json.MAPPER.createArrayNode();
        for (int i = 0; i < 12; i++) {
            batch.addObject()
                    .put("session", "traced")
                    .put("user", "u1")
                    .put("role", i % 2 == 0 ? "user" : "assistant")
                    .put("content", ("message " + i + " about the deployment of the billing service ").repeat(30));
        }
        HttpRequest request = ApiClient.request("POST", url + "/v1/messages", TestApps.ACME_KEY, batch);
        ApiClient.Response answer = ApiClient.send(HttpRequest.newBuilder(request, (name, value) -> true)
                .header("traceparent", TRACEPARENT)
                .build());
        assertEquals(202, answer.status(), answer.text());
    }

    /** The small-context settings and keys as environment variables, the workers in the instance (the default). */
    private static Map<String, String> environment() {
        Map<String, String> options = new HashMap<>(TestApps.SMALL_CONTEXT);
        options.put(AppConfig.API_KEYS.name(), TestApps.API_KEYS);
        options.put(AppConfig.REQUEST_SECRET.name(), TestApps.REQUEST_SECRET);
        options.put(AppConfig.PARTITIONS.name(), "4");
        options.put(AppConfig.EMBEDDING.name(), "none");
        // Mutable: the test adds the OpenTelemetry variables.
        return new HashMap<>(TestApps.environment(options));
    }
}
