package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.reme.config.AppConfig;
import io.reme.diary.DiaryEdit;
import io.reme.json.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The MCP server at {@code /mcp} against a running instance, through the MCP Java SDK's own client over
 * Streamable HTTP: the tools and resources answer for the key's tenant only, errors carry the HTTP
 * API's codes, and a missing or wrong key is refused before any tool runs.
 */
@Tag("integration")
class McpIT extends WithBroker {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String MEMORY_MD = "# Long-term memory\n- Alice deploys the orders-service on Fridays.\n";
    private static RemeApp app;
    private static McpSyncClient acme;
    private static McpSyncClient globex;

    @BeforeAll
    static void start() throws Exception {
        app = RemeApp.start(TestApps.config(
                broker.bootstrapServers(), dir.resolve("app"), Map.of(AppConfig.PARTITIONS.name(), "2")));
        acme = client(TestApps.ACME_KEY);
        globex = client(TestApps.GLOBEX_KEY);
        acme.initialize();
        globex.initialize();
    }

    @AfterAll
    static void stop() {
        for (McpSyncClient client : new McpSyncClient[] {acme, globex}) {
            if (client != null) {
                client.closeGracefully();
            }
        }
        if (app != null) {
            app.close();
        }
    }

    private static McpSyncClient client(String key) {
        return McpClient.sync(HttpClientStreamableHttpTransport.builder(app.httpUrl())
                        .endpoint("/mcp")
                        .addHttpRequestCustomizer((request, method, uri, body, context) ->
                                request.header("Authorization", "Bearer " + key))
                        .build())
                .requestTimeout(Duration.ofSeconds(30))
                .build();
    }

    private static JsonNode call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        McpSchema.CallToolResult result = client.callTool(
                McpSchema.CallToolRequest.builder(tool).arguments(arguments).build());
        JsonNode structured = Json.MAPPER.valueToTree(result.structuredContent());
        JsonNode text = text(result);
        assertEquals(text, structured, "the text content is the structured content as JSON");
        if (Boolean.TRUE.equals(result.isError())) {
            return Json.MAPPER.createObjectNode().put("isError", true).set("error", structured.path("error"));
        }
        return structured;
    }

    private static JsonNode text(McpSchema.CallToolResult result) {
        try {
            return Json.MAPPER.readTree(
                    ((McpSchema.TextContent) result.content().get(0)).text());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode ok(McpSyncClient client, String tool, Map<String, Object> arguments) {
        JsonNode answer = call(client, tool, arguments);
        assertFalse(answer.path("isError").asBoolean(), () -> tool + " failed: " + answer);
        return answer;
    }

    private static void assertToolError(JsonNode answer, int status, String code) {
        assertTrue(answer.path("isError").asBoolean(), answer::toString);
        assertEquals(code, answer.path("error").path("code").asText(), answer::toString);
        assertEquals(status, answer.path("error").path("status").asInt(), answer::toString);
        assertFalse(answer.path("error").path("message").asText().isBlank(), answer::toString);
    }

    /** Calls the tool until {@code done} holds for its answer. */
    private static JsonNode await(
            McpSyncClient client, String tool, Map<String, Object> arguments, Predicate<JsonNode> done) {
        AtomicReference<JsonNode> last = new AtomicReference<>();
        Awaitility.await(tool + " answers as expected")
                .atMost(DEADLINE)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    last.set(call(client, tool, arguments));
                    assertTrue(done.test(last.get()), () -> tool + " never answered as expected; last " + last.get());
                });
        return last.get();
    }

    @Test
    void theToolsAndResourceTemplatesAreListed() {
        Set<String> names = new TreeSet<>();
        acme.listTools().tools().forEach(tool -> {
            names.add(tool.name());
            assertEquals("object", tool.inputSchema().get("type"), tool.name());
        });
        assertEquals(
                new TreeSet<>(List.of(
                        "search_memory",
                        "add_memory",
                        "update_memory",
                        "delete_memory",
                        "list_memories",
                        "get_context",
                        "append_messages",
                        "read_diary")),
                names);
        Set<String> templates = new TreeSet<>();
        acme.listResourceTemplates().resourceTemplates().forEach(t -> templates.add(t.uriTemplate()));
        assertEquals(Set.of("reme://memory/{user}", "reme://diary/{user}/{date}"), templates);
    }

    @Test
    void messagesAppendedByOneTenantMakeAContextOnlyItCanRead() throws Exception {
        JsonNode written = ok(
                acme,
                "append_messages",
                Map.of(
                        "session",
                        "mcp-s1",
                        "user",
                        "alice",
                        "messages",
                        List.of(
                                Map.of("role", "user", "content", "Our orders-service drops offsets."),
                                Map.of("role", "assistant", "content", "Since which deploy?"))));
        assertEquals(2, written.path("accepted").asInt(), written::toString);
        assertEquals("acme/mcp-s1", written.path("records").path(0).path("key").asText());

        JsonNode context = await(
                acme,
                "get_context",
                Map.of("session", "mcp-s1"),
                a -> a.path("messages").size() == 2);
        assertEquals(
                Json.MAPPER.readTree("[{\"role\":\"user\",\"content\":\"Our orders-service drops offsets.\"},"
                        + "{\"role\":\"assistant\",\"content\":\"Since which deploy?\"}]"),
                context.path("messages"));
        assertTrue(context.path("tokens").path("total").asLong() > 0, context::toString);
        JsonNode full = ok(acme, "get_context", Map.of("session", "mcp-s1", "format", "full"));
        assertEquals("alice", full.path("user").asText(), full::toString);

        assertToolError(call(globex, "get_context", Map.of("session", "mcp-s1")), 404, "session_not_found");
        assertToolError(
                call(acme, "get_context", Map.of("session", "mcp-s1", "format", "gemini")), 400, "invalid_query");
        assertToolError(
                call(acme, "append_messages", Map.of("session", "mcp-s1", "user", "alice", "messages", List.of())),
                400,
                "invalid_messages");
    }

    @Test
    void memoriesAreAddedFoundChangedAndDeletedWithinTheTenant() throws Exception {
        JsonNode added = ok(
                acme,
                "add_memory",
                Map.of("type", "personal", "user", "alice", "content", "Alice drinks green tea every morning"));
        String id = added.path("id").asText();
        assertEquals(1, added.path("version").asInt(), added::toString);

        JsonNode hits = await(
                acme,
                "search_memory",
                Map.of("query", "green tea", "user", "alice", "k", 5),
                a -> a.path("hits").size() > 0);
        assertEquals(id, hits.path("hits").path(0).path("id").asText(), hits::toString);
        assertEquals("personal", hits.path("hits").path(0).path("type").asText().toLowerCase(Locale.ROOT));

        JsonNode otherHits = ok(globex, "search_memory", Map.of("query", "green tea"));
        assertEquals(0, otherHits.path("hits").size(), "globex never sees acme's memories: " + otherHits);
        assertEquals(
                0,
                ok(globex, "list_memories", Map.of()).path("memories").size(),
                "globex lists none of acme's memories");
        assertToolError(call(globex, "delete_memory", Map.of("id", id)), 404, "memory_not_found");
        assertToolError(
                call(globex, "update_memory", Map.of("id", id, "content", "hijacked")), 404, "memory_not_found");

        JsonNode listed = ok(acme, "list_memories", Map.of("user", "alice", "type", List.of("personal")));
        assertEquals(id, listed.path("memories").path(0).path("id").asText(), listed::toString);

        JsonNode updated =
                ok(acme, "update_memory", Map.of("id", id, "content", "Alice drinks oolong tea", "version", 1));
        assertEquals(2, updated.path("version").asInt(), updated::toString);
        assertToolError(
                call(acme, "update_memory", Map.of("id", id, "content", "stale", "version", 1)),
                409,
                "version_conflict");

        JsonNode deleted = ok(acme, "delete_memory", Map.of("id", id));
        assertTrue(deleted.path("deleted").asBoolean(), deleted::toString);
        assertToolError(call(acme, "delete_memory", Map.of("id", id)), 404, "memory_not_found");

        assertToolError(call(acme, "search_memory", Map.of("query", "tea", "k", 0)), 400, "invalid_query");
        String metrics =
                ApiClient.send(app, "GET", "/metrics", TestApps.ACME_KEY, null).text();
        assertTrue(
                metrics.lines()
                        .anyMatch(line -> line.startsWith("reme_mcp_tool_calls_total{")
                                && line.contains("outcome=\"error\"")
                                && line.contains("tool=\"search_memory\"")
                                && !line.endsWith(" 0.0")),
                "the failed search is counted");
        assertToolError(call(acme, "add_memory", Map.of("type", "diary_chunk", "content", "x")), 400, "invalid_memory");
    }

    @Test
    void theDiaryIsAToolAndAResourceOfTheTenantOnly() throws Exception {
        DiaryEdit edit =
                new DiaryEdit("edit-1", "acme", "alice", "MEMORY", 0, MEMORY_MD, "req-1", Instant.now(), List.of());
        try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            byte[] key = edit.key().key().getBytes(StandardCharsets.UTF_8);
            producer.send(TestKafka.signedEdit(
                            app.config().topics().diaryEdits(), key, Json.MAPPER.writeValueAsBytes(edit)))
                    .get();
        }
        JsonNode memory = await(
                acme,
                "read_diary",
                Map.of("user", "alice"),
                a -> !a.path("isError").asBoolean());
        assertEquals(MEMORY_MD, memory.path("content").asText(), memory::toString);

        McpSchema.ReadResourceResult resource = acme.readResource(
                McpSchema.ReadResourceRequest.builder("reme://memory/alice").build());
        McpSchema.TextResourceContents contents =
                (McpSchema.TextResourceContents) resource.contents().get(0);
        assertEquals(MEMORY_MD, contents.text());
        assertEquals("text/markdown", contents.mimeType());

        assertToolError(call(globex, "read_diary", Map.of("user", "alice")), 404, "document_not_found");
        McpError missing = assertThrows(
                McpError.class,
                () -> globex.readResource(McpSchema.ReadResourceRequest.builder("reme://memory/alice")
                        .build()));
        assertEquals(
                McpSchema.ErrorCodes.RESOURCE_NOT_FOUND,
                missing.getJsonRpcError().code());
        McpError noDay = assertThrows(
                McpError.class,
                () -> acme.readResource(McpSchema.ReadResourceRequest.builder("reme://diary/alice/2026-02-30")
                        .build()));
        assertEquals(
                McpSchema.ErrorCodes.INVALID_PARAMS, noDay.getJsonRpcError().code(), noDay::toString);
        assertToolError(
                call(acme, "read_diary", Map.of("user", "alice", "date", "yesterday")), 400, "invalid_document");
    }

    @Test
    void aSessionServesOnlyTheKeyThatOpenedIt() throws Exception {
        ok(
                acme,
                "append_messages",
                Map.of(
                        "session",
                        "mcp-swap",
                        "user",
                        "alice",
                        "messages",
                        List.of(Map.of("role", "user", "content", "hi"))));
        await(
                acme,
                "get_context",
                Map.of("session", "mcp-swap"),
                a -> a.path("messages").size() == 1);
        AtomicReference<String> key = new AtomicReference<>(TestApps.ACME_KEY);
        McpSyncClient swapping = McpClient.sync(HttpClientStreamableHttpTransport.builder(app.httpUrl())
                        .endpoint("/mcp")
                        .addHttpRequestCustomizer((request, method, uri, body, context) ->
                                request.header("Authorization", "Bearer " + key.get()))
                        .build())
                .requestTimeout(Duration.ofSeconds(30))
                .build();
        try {
            swapping.initialize();
            assertEquals(
                    1,
                    ok(swapping, "get_context", Map.of("session", "mcp-swap"))
                            .path("messages")
                            .size());
            // Same MCP session, another tenant's key: refused as an unknown session, before any tool runs.
            key.set(TestApps.GLOBEX_KEY);
            assertThrows(
                    RuntimeException.class,
                    () -> swapping.callTool(McpSchema.CallToolRequest.builder("get_context")
                            .arguments(Map.of("session", "mcp-swap"))
                            .build()));
        } finally {
            swapping.close();
        }
    }

    @Test
    void anotherTenantsKeyCannotAttachToOrEndASession() throws Exception {
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
        HttpResponse<String> opened = ApiClient.raw(mcpRequest(TestApps.ACME_KEY, null)
                .POST(HttpRequest.BodyPublishers.ofString(initialize))
                .build());
        assertEquals(200, opened.statusCode(), opened::body);
        String session = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();

        for (String method : new String[] {"GET", "DELETE", "POST"}) {
            HttpRequest.Builder foreign = mcpRequest(TestApps.GLOBEX_KEY, session);
            HttpResponse<String> refused = ApiClient.raw(
                    method.equals("POST")
                            ? foreign.POST(HttpRequest.BodyPublishers.ofString(
                                            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"))
                                    .build()
                            : foreign.method(method, HttpRequest.BodyPublishers.noBody())
                                    .build());
            assertEquals(404, refused.statusCode(), () -> method + ": " + refused.body());
        }
        // A made-up id gets the same answer as a foreign one.
        HttpResponse<String> unknown =
                ApiClient.raw(mcpRequest(TestApps.GLOBEX_KEY, "0b7d7f1e-0000-4000-8000-000000000000")
                        .DELETE()
                        .build());
        assertEquals(404, unknown.statusCode(), unknown::body);

        // The owner's session was neither ended nor taken: it still answers, and only its owner ends it.
        HttpResponse<String> ping = ApiClient.raw(mcpRequest(TestApps.ACME_KEY, session)
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}"))
                .build());
        assertEquals(200, ping.statusCode(), ping::body);
        assertTrue(ping.body().contains("\"id\":4"), ping::body);
        HttpResponse<String> ended =
                ApiClient.raw(mcpRequest(TestApps.ACME_KEY, session).DELETE().build());
        assertEquals(200, ended.statusCode(), ended::body);
        HttpResponse<String> gone = ApiClient.raw(mcpRequest(TestApps.ACME_KEY, session)
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}"))
                .build());
        assertEquals(404, gone.statusCode(), gone::body);
    }

    private static HttpRequest.Builder mcpRequest(String key, String session) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.httpUrl() + "/mcp"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream");
        return session == null ? request : request.header("Mcp-Session-Id", session);
    }

    @Test
    void aMissingOrWrongKeyIsRefusedBeforeAnyToolRuns() throws Exception {
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
        for (String authorization : new String[] {null, "Bearer not-a-key-0123456789abcdef", "Basic abc"}) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.httpUrl() + "/mcp"))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(initialize));
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
            HttpResponse<String> response;
            response = ApiClient.raw(request.build());
            assertEquals(401, response.statusCode(), response::body);
            assertEquals(
                    "Bearer", response.headers().firstValue("WWW-Authenticate").orElse(null));
            assertEquals(
                    "unauthorized",
                    Json.MAPPER
                            .readTree(response.body())
                            .path("error")
                            .path("code")
                            .asText());
        }

        // With a good key, what the transport refuses by itself is a JSON-RPC error, not a Java exception.
        HttpRequest noSession = HttpRequest.newBuilder(URI.create(app.httpUrl() + "/mcp"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + TestApps.ACME_KEY)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"))
                .build();
        HttpResponse<String> refused = ApiClient.raw(noSession);
        assertEquals(400, refused.statusCode(), refused::body);
        JsonNode body = Json.MAPPER.readTree(refused.body());
        assertEquals("2.0", body.path("jsonrpc").asText(), refused::body);
        assertTrue(body.path("error").path("message").asText().contains("Session ID"), refused::body);
        assertFalse(refused.body().contains("stackTrace"), refused::body);

        McpSyncClient stranger = client("not-a-key-0123456789abcdef");
        try {
            assertThrows(RuntimeException.class, stranger::initialize);
        } finally {
            stranger.close();
        }
        // The session of a good key does not carry a tenant to a request without one.
        assertNotEquals(null, acme.ping());
    }
}
