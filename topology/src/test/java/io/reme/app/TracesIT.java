package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import io.reme.provider.offline.OfflineLlmClient;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import java.io.IOException;
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
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Traces end to end: the application in a child JVM with {@code OTEL_EXPORTER_OTLP_ENDPOINT} naming an OTLP/HTTP
 * receiver this test runs; messages posted with a W3C {@code traceparent} cross the window's threshold, and the
 * worker's span for the compaction they cause and its LLM task's span reach the receiver in the poster's trace. And
 * in one JVM, the whole path from the POST to the diary file with the SDK's in-memory exporter.
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

    /**
     * In one JVM, with the SDK's in-memory exporter: a POST's trace runs through the session processor, the worker,
     * its diary update and the diary processor to the diary file and the memories' index writes; a search made in the
     * trace is a {@code search_memory} span of it, and a memory written through the API is indexed in it.
     */
    @Test
    void aPostsTraceRunsToTheDiaryFileAndItsSearches() throws Exception {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        OpenTelemetry traces = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .build();
        Map<String, String> options = new HashMap<>(TestApps.SMALL_CONTEXT);
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "true");
        options.put(AppConfig.SINKS_EMBEDDED.name(), "true");
        // Topics and groups of its own: the other test's application wrote the same session on this broker.
        options.put(AppConfig.APPLICATION_ID.name(), "reme-traced");
        options.put(AppConfig.TOPIC_PREFIX.name(), "traced.");
        AppConfig config = TestApps.config(broker.bootstrapServers(), dir.resolve("in-process"), options);
        Topics topics = config.topics();
        try (RemeApp app = RemeApp.start(config, Providers::embeddings, traces)) {
            post(app.httpUrl());
            List<String> path = List.of(
                    "process " + topics.messages(),
                    "process " + topics.llmRequests(),
                    "invoke_agent " + OfflineLlmClient.ID,
                    "process " + topics.diaryEdits(),
                    "process " + topics.memories());
            Awaitility.await("the spans " + path + " in trace " + TRACE_ID + " and a diary file")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        List<String> names = names(spans);
                        assertTrue(diaryFile(config.workspaceDir()), "a diary file in " + files(config.workspaceDir()));
                        assertTrue(
                                names.containsAll(path),
                                "the trace's spans so far: " + names + "; all: "
                                        + spans.getFinishedSpanItems().stream()
                                                .map(span -> span.getName() + "@" + span.getTraceId())
                                                .toList());
                    });

            HttpRequest search = ApiClient.request(
                    "POST",
                    app.httpUrl() + "/v1/search",
                    TestApps.ACME_KEY,
                    Json.MAPPER.createObjectNode().put("query", "billing service deployment"));
            ApiClient.Response answer = ApiClient.send(HttpRequest.newBuilder(search, (name, value) -> true)
                    .header("traceparent", TRACEPARENT)
                    .build());
            assertEquals(200, answer.status(), answer.text());
            // The caller's child (a worker's lookup for the extraction is a search_memory span too, of the worker's).
            SpanData searched = spans.getFinishedSpanItems().stream()
                    .filter(span -> span.getName().equals("search_memory " + topics.memories())
                            && span.getParentSpanId().equals("00f067aa0ba902b7"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no search_memory span of the caller in " + names(spans)));
            assertEquals(TRACE_ID, searched.getTraceId());
            assertEquals("search_memory", searched.getAttributes().get(RecordTracing.OPERATION));
            assertEquals(
                    (long) answer.json().path("hits").size(),
                    searched.getAttributes().get(RecordTracing.RECORD_COUNT));

            // Every span so far is in the caller's trace, the session's its children, none a root.
            for (SpanData span : spans.getFinishedSpanItems()) {
                assertEquals(TRACE_ID, span.getTraceId(), span.getName() + " is in the caller's trace");
                assertTrue(span.getParentSpanContext().isValid(), span.getName() + " has a parent");
                if (span.getName().equals("process " + topics.messages())) {
                    assertEquals("00f067aa0ba902b7", span.getParentSpanId(), "a message's span: the caller's child");
                }
            }

            // A memory written through the API in the trace: a create_memory span, the caller's child, and its index
            // write a child of that.
            spans.reset();
            HttpRequest create = ApiClient.request(
                    "POST",
                    app.httpUrl() + "/v1/memories",
                    TestApps.ACME_KEY,
                    Json.MAPPER
                            .createObjectNode()
                            .put("type", "personal")
                            .put("user", "u1")
                            .put("content", "Prefers idempotent producers."));
            ApiClient.Response created = ApiClient.send(HttpRequest.newBuilder(create, (name, value) -> true)
                    .header("traceparent", TRACEPARENT)
                    .build());
            assertTrue(created.status() == 201 || created.status() == 202, created.text());
            // The caller's child (a late extraction's writes are create_memory spans too, of the worker's).
            SpanData written = spans.getFinishedSpanItems().stream()
                    .filter(span -> span.getName().equals("create_memory " + topics.memories())
                            && span.getParentSpanId().equals("00f067aa0ba902b7"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no create_memory span of the caller in " + names(spans)));
            assertEquals("create_memory", written.getAttributes().get(RecordTracing.OPERATION));
            assertEquals(1L, written.getAttributes().get(RecordTracing.RECORD_COUNT));
            Awaitility.await("the index write of the memory the API wrote in trace " + TRACE_ID)
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> spans.getFinishedSpanItems().stream()
                            .anyMatch(span -> span.getName().equals("process " + topics.memories())
                                    && span.getParentSpanId().equals(written.getSpanId())));
        }
    }

    /** The names of the finished spans of the test's trace. */
    private static List<String> names(InMemorySpanExporter spans) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(TRACE_ID))
                .map(SpanData::getName)
                .toList();
    }

    private static List<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.toList();
        }
    }

    /** Whether the file sink has written a day's diary ({@code memory/YYYY-MM-DD.md}) into the workspace. */
    private static boolean diaryFile(Path workspace) throws IOException {
        if (!Files.isDirectory(workspace)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(workspace)) {
            return files.anyMatch(file -> file.getParent() != null
                    && file.getParent().getFileName().toString().equals("memory")
                    && file.getFileName().toString().matches("\\d{4}-\\d{2}-\\d{2}\\.md"));
        }
    }

    private static boolean seen(List<String> exports, String traceId, String name) {
        return exports.stream().anyMatch(e -> e.contains(traceId) && e.contains(name));
    }

    /**
     * Twelve messages of 300 words with a decision in each, in one request carrying the trace: over the small window's
     * 2,660 tokens.
     */
    private static void post(String url) throws Exception {
        ArrayNode batch = Json.MAPPER.createArrayNode();
        for (int i = 0; i < 12; i++) {
            batch.addObject()
                    .put("session", "traced")
                    .put("user", "u1")
                    .put("role", i % 2 == 0 ? "user" : "assistant")
                    .put(
                            "content",
                            // A fact the offline provider's diary keeps, so the diary update writes a document.
                            "Decision: use idempotent producers for the billing service. "
                                    + ("message " + i + " about the deployment of the billing service ").repeat(30));
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
