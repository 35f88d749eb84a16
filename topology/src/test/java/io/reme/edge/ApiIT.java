package io.reme.edge;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ApiClient;
import io.reme.app.ApiClient.Response;
import io.reme.app.RemeApp;
import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.embedded.EmbeddedKafka;
import io.reme.json.Json;
import io.reme.tokens.TokenCounter;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP API against a running instance on an in-JVM broker: auth, routing, ingestion, context reads, isolation. */
@Tag("integration")
class ApiIT {
    private static final String ACME_KEY = "acme-key-0123456789abcdef";
    private static final String REQUEST_SECRET = "api-it-request-secret-0123456789abcdef";
    private static final String GLOBEX_KEY = "globex-key-0123456789abcdef";
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);

    @TempDir
    static Path dir;

    private static EmbeddedKafka broker;
    private static RemeApp app;

    @BeforeAll
    static void start() {
        broker = EmbeddedKafka.start(dir.resolve("broker"));
        app = RemeApp.start(AppConfig.of(Map.of(
                "reme.bootstrap.servers",
                broker.bootstrapServers(),
                "reme.request.secret",
                REQUEST_SECRET,
                "reme.data.dir",
                dir.resolve("app").toString(),
                "reme.http.port",
                "0",
                "reme.api.keys",
                "acme:" + ACME_KEY + ",globex:" + GLOBEX_KEY,
                "reme.topic.partitions",
                "2")));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static String bearer(String key) {
        return key == null ? null : "Bearer " + key;
    }

    /** One request; {@code authorization} is the raw header value, null for none. */
    private static Response send(RemeApp target, String method, String path, String authorization, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.httpUrl() + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return ApiClient.send(request.build());
    }

    private static Response get(String path, String key) {
        return send(app, "GET", path, bearer(key), null);
    }

    private static Response post(String key, String body) {
        return send(app, "POST", "/v1/messages", bearer(key), body);
    }

    private static String session() {
        return "s-" + UUID.randomUUID();
    }

    private static String envelope(String session, String user, String role, String text) {
        return json(Map.of("session", session, "user", user, "role", role, "content", text));
    }

    private static String json(Object value) {
        try {
            return Json.MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void assertError(Response reply, int status, String code) {
        assertEquals(status, reply.status(), reply::text);
        assertEquals("application/json", reply.contentType());
        JsonNode error = reply.json().path("error");
        assertEquals(code, error.path("code").asText(null), reply::text);
        assertFalse(error.path("message").asText("").isBlank(), reply::text);
    }

    /** Polls the session's context until it holds {@code count} messages; fails after the deadline. */
    private static JsonNode awaitContext(RemeApp target, String key, String session, int count) {
        Response done = await("session " + session + " holding " + count + " messages")
                .atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            Response answer =
                                    send(target, "GET", "/v1/sessions/" + session + "/context", bearer(key), null);
                            assertTrue(
                                    answer.status() == 404 || answer.status() == 503 || answer.status() == 200,
                                    answer::text);
                            return answer;
                        },
                        answer -> answer.status() == 200
                                && answer.json().path("messages").size() >= count);
        assertEquals(count, done.json().path("messages").size(), done::text);
        return done.json();
    }

    private static List<String> texts(JsonNode context) {
        List<String> texts = new ArrayList<>();
        context.path("messages")
                .forEach(m -> texts.add(
                        m.path("message").path("content").path(0).path("text").asText()));
        return texts;
    }

    // ---- health and routing --------------------------------------------------------------------

    @Test
    void healthNeedsNoToken() {
        Response live = get("/health/live", null);
        assertEquals(200, live.status(), live::text);
        assertEquals("UP", live.json().path("status").asText());

        Response ready = get("/health/ready", null);
        assertEquals(200, ready.status(), ready::text);
        assertEquals("application/json", ready.contentType());
        assertTrue(ready.json().path("ready").asBoolean(), ready::text);
        assertEquals("RUNNING", ready.json().path("streamsState").asText(), ready::text);
    }

    @Test
    void withoutTheRightTokenTheApiAnswers401() {
        String context = "/v1/sessions/" + session() + "/context";
        String body = envelope(session(), "u1", "user", "hello");
        List<String> refused = new ArrayList<>(List.of(
                "Bearer wrong-key-0123456789abcdef",
                "Basic " + ACME_KEY,
                "Bearer",
                "Bearer ",
                ACME_KEY,
                "Bearer acme:" + ACME_KEY,
                "Bearer " + ACME_KEY + "0",
                "Bearer " + ACME_KEY.substring(0, 16)));
        refused.add(null);
        for (String authorization : refused) {
            assertError(send(app, "GET", context, authorization, null), 401, "unauthorized");
            assertError(send(app, "POST", "/v1/messages", authorization, body), 401, "unauthorized");
        }
    }

    @Test
    void unknownRoutesAre404AndWrongMethods405() {
        assertError(get("/v1/nothing", ACME_KEY), 404, "not_found");
        assertError(get("/", null), 404, "not_found");
        assertError(get("/v1/sessions/s1", ACME_KEY), 404, "not_found");
        assertError(get("/v1/sessions/s1/context/extra", ACME_KEY), 404, "not_found");

        assertError(get("/v1/messages", ACME_KEY), 405, "method_not_allowed");
        assertEquals("POST", get("/v1/messages", ACME_KEY).allow(), "a 405 says which method the route takes");
        assertEquals("GET", send(app, "POST", "/health/live", null, "{}").allow());
        assertError(send(app, "DELETE", "/v1/messages", bearer(ACME_KEY), null), 405, "method_not_allowed");
        assertError(send(app, "POST", "/v1/sessions/s1/context", bearer(ACME_KEY), "{}"), 405, "method_not_allowed");
        assertError(send(app, "POST", "/health/live", null, "{}"), 405, "method_not_allowed");
        assertError(send(app, "PUT", "/health/ready", null, "{}"), 405, "method_not_allowed");
    }

    // ---- ingestion and context -----------------------------------------------------------------

    @Test
    void aPostedMessageShowsUpInTheSessionContext() {
        String session = session();
        String text = "Hello there, how do I rotate the logs of service Ω-7 every 15 minutes?";

        Response accepted = post(ACME_KEY, envelope(session, "alice", "user", text));

        assertEquals(202, accepted.status(), accepted::text);
        assertEquals("application/json", accepted.contentType());
        assertEquals(1, accepted.json().path("accepted").asInt());
        JsonNode record = accepted.json().path("records").path(0);
        assertEquals("acme/" + session, record.path("key").asText());
        int partition = record.path("partition").asInt(-1);
        assertTrue(partition == 0 || partition == 1, accepted::text);
        assertTrue(record.path("offset").asLong(-1) >= 0, accepted::text);

        JsonNode context = awaitContext(app, ACME_KEY, session, 1);
        assertEquals("acme", context.path("tenant").asText());
        assertEquals(session, context.path("session").asText());
        assertEquals("alice", context.path("user").asText());
        JsonNode stored = context.path("messages").path(0);
        JsonNode message = stored.path("message");
        assertEquals("acme", message.path("tenant").asText());
        assertEquals("alice", message.path("user").asText());
        assertEquals("user", message.path("role").asText());
        assertEquals("text", message.path("content").path(0).path("type").asText());
        assertEquals(text, message.path("content").path(0).path("text").asText());
        // The id and time were filled in on ingestion.
        assertFalse(message.path("id").asText("").isBlank(), context::toString);
        assertNotNull(Instant.parse(message.path("time").asText()));

        int expected = TOKENS.count(text);
        assertTrue(expected > 10, "the text should be more than a handful of tokens");
        assertEquals(expected, stored.path("tokens").asInt(-1), context::toString);
        JsonNode tokens = context.path("tokens");
        assertEquals("o200k_base", tokens.path("encoding").asText());
        assertEquals(expected, tokens.path("messages").asLong(-1));
        assertEquals(expected, tokens.path("total").asLong(-1));
        assertEquals(131072, tokens.path("maxInputLength").asInt());
        assertEquals(87162, tokens.path("threshold").asLong());
    }

    @Test
    void givenIdTimeAndOwnTenantAreKept() {
        String session = session();
        String body = json(Map.of(
                "tenant",
                "acme",
                "session",
                session,
                "user",
                "bob",
                "role",
                "assistant",
                "id",
                "msg-42",
                "time",
                "2026-11-30T10:15:00+01:00",
                "content",
                "Sure."));

        Response accepted = post(ACME_KEY, body);

        assertEquals(202, accepted.status(), accepted::text);
        JsonNode message =
                awaitContext(app, ACME_KEY, session, 1).path("messages").path(0).path("message");
        assertEquals("msg-42", message.path("id").asText());
        assertEquals(
                Instant.parse("2026-11-30T09:15:00Z"),
                Instant.parse(message.path("time").asText()));
        assertEquals("assistant", message.path("role").asText());
    }

    @Test
    void aBatchIsAcceptedInOrder() {
        String session = session();
        List<String> texts = List.of("first", "second message", "third and last");
        String batch = "[" + envelope(session, "carol", "user", texts.get(0)) + ","
                + envelope(session, "carol", "assistant", texts.get(1)) + ","
                + envelope(session, "carol", "user", texts.get(2)) + "]";

        Response accepted = post(ACME_KEY, batch);

        assertEquals(202, accepted.status(), accepted::text);
        assertEquals(3, accepted.json().path("accepted").asInt());
        JsonNode records = accepted.json().path("records");
        assertEquals(3, records.size());
        for (int i = 0; i < 3; i++) {
            assertEquals("acme/" + session, records.path(i).path("key").asText());
            assertEquals(
                    records.path(0).path("partition").asInt(),
                    records.path(i).path("partition").asInt());
            if (i > 0) {
                assertTrue(
                        records.path(i).path("offset").asLong()
                                > records.path(i - 1).path("offset").asLong(),
                        accepted::text);
            }
        }

        JsonNode context = awaitContext(app, ACME_KEY, session, 3);
        assertEquals(texts, texts(context));
        List<String> roles = new ArrayList<>();
        context.path("messages")
                .forEach(m -> roles.add(m.path("message").path("role").asText()));
        assertEquals(List.of("user", "assistant", "user"), roles);
        long sum = texts.stream().mapToLong(TOKENS::count).sum();
        assertEquals(sum, context.path("tokens").path("messages").asLong());
    }

    @Test
    void aBatchWithOneBadMessageProducesNothing() {
        String session = session();
        String batch = "[" + envelope(session, "dave", "user", "fine") + ","
                + envelope(session, "dave", "robot", "not fine") + "]";

        Response rejected = post(ACME_KEY, batch);

        assertError(rejected, 400, "invalid_role");
        assertTrue(rejected.json().path("error").path("message").asText().startsWith("message 1:"), rejected::text);
        // A later message lands behind anything produced for this key: if it is alone, nothing was.
        assertEquals(
                202, post(ACME_KEY, envelope(session, "dave", "user", "later")).status());
        assertEquals(List.of("later"), texts(awaitContext(app, ACME_KEY, session, 1)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\",\"content\":\"hi\",\"id\":\"\"}          | invalid_id",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\",\"content\":\"hi\",\"id\":\"   \"}       | invalid_id",
                "{\"session\":\"a/b\",\"user\":\"u1\",\"role\":\"user\",\"content\":\"hi\"}                     | invalid_id",
                "{\"session\":\"s1\",\"user\":\"../u1\",\"role\":\"user\",\"content\":\"hi\"}                   | invalid_id",
                "{\"user\":\"u1\",\"role\":\"user\",\"content\":\"hi\"}                                         | missing_field",
                "{\"session\":\"s1\",\"role\":\"user\",\"content\":\"hi\"}                                      | missing_field",
                "{\"session\":\"s1\",\"user\":\"u1\",\"content\":\"hi\"}                                        | missing_field",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\"}                                         | missing_field",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"tool\",\"content\":\"out\"}                     | missing_field",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"robot\",\"content\":\"hi\"}                     | invalid_role",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\",\"content\":42}                          | invalid_content",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\",\"content\":[{\"type\":\"video\"}]}      | invalid_content",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\",\"content\":\"hi\",\"time\":\"today\"}   | invalid_time",
                "{\"session\":\"s1\",\"user\":\"u1\",\"role\":\"user\",\"content\":\"hi\",\"time\":true}        | invalid_time",
                "42                                                                                         | malformed_json",
                "[42]                                                                                       | malformed_json",
                "[]                                                                                         | invalid_batch",
                "'{\"session\":\"s1\",'                                                                     | malformed_json",
                "not json at all                                                                            | malformed_json",
            })
    void invalidEnvelopesAre400WithTheReason(String body, String code) {
        assertError(post(ACME_KEY, body), 400, code);
    }

    @Test
    void anEmptyBodyIs400() {
        assertError(post(ACME_KEY, ""), 400, "malformed_json");
    }

    @Test
    void aBodyNamingAnotherTenantIs403() {
        String session = session();
        Response reply = post(
                ACME_KEY,
                json(Map.of("tenant", "globex", "session", session, "user", "u1", "role", "user", "content", "hi")));
        assertError(reply, 403, "tenant_mismatch");

        String batch = "[" + envelope(session, "u1", "user", "ok") + ","
                + json(Map.of("tenant", "globex", "session", session, "user", "u1", "role", "user", "content", "hi"))
                + "]";
        assertError(post(ACME_KEY, batch), 403, "tenant_mismatch");
    }

    // ---- isolation and path validation ---------------------------------------------------------

    @Test
    void tenantsNeverSeeEachOthersSessions() {
        String session = session();
        String secret = "acme's launch code is 0451-" + UUID.randomUUID();
        assertEquals(
                202, post(ACME_KEY, envelope(session, "alice", "user", secret)).status());
        awaitContext(app, ACME_KEY, session, 1);

        Response foreign = get("/v1/sessions/" + session + "/context", GLOBEX_KEY);
        assertError(foreign, 404, "session_not_found");
        assertFalse(foreign.text().contains(secret), foreign::text);
        assertFalse(foreign.text().contains("alice"), foreign::text);

        // globex may use the same session id: it gets its own session, and neither sees the other.
        String own = "globex's own words";
        assertEquals(
                202, post(GLOBEX_KEY, envelope(session, "gina", "user", own)).status());
        JsonNode globex = awaitContext(app, GLOBEX_KEY, session, 1);
        assertEquals("globex", globex.path("tenant").asText());
        assertEquals(List.of(own), texts(globex));
        assertFalse(globex.toString().contains(secret));
        assertEquals(List.of(secret), texts(awaitContext(app, ACME_KEY, session, 1)));
    }

    @Test
    void anUnknownSessionIs404() {
        assertError(get("/v1/sessions/" + session() + "/context", ACME_KEY), 404, "session_not_found");
    }

    @Test
    void invalidSessionIdsInThePathAre400() {
        for (String session : List.of("%2E%2E", "..", "%2e", "a%20b", "-leading-dash", "s".repeat(65), "%C3%A4")) {
            assertError(get("/v1/sessions/" + session + "/context", ACME_KEY), 400, "invalid_session");
        }
        // An encoded NUL is refused by the server itself, in any path, before the id check.
        assertError(get("/v1/sessions/a%00b/context", ACME_KEY), 400, "bad_request");
        // 64 characters is still a valid id.
        assertError(get("/v1/sessions/" + "s".repeat(64) + "/context", ACME_KEY), 404, "session_not_found");
        // An encoded slash does not reach another route or session.
        Response slash = get("/v1/sessions/a%2F..%2Fb/context", ACME_KEY);
        assertTrue(slash.status() == 400 || slash.status() == 404, slash::text);
    }

    // ---- hostile and broken clients ------------------------------------------------------------

    private static int port() {
        return URI.create(app.httpUrl()).getPort();
    }

    @Test
    void silentAndHalfSentConnectionsDoNotHangTheApi() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) {
                Socket socket = RawHttp.connect(port());
                sockets.add(socket);
                String half = i % 2 == 0
                        ? "GET /health/live HTTP/1.1\r\nHost: x\r\n"
                        : "POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ACME_KEY
                                + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\":";
                socket.getOutputStream().write(half.getBytes(StandardCharsets.UTF_8));
                socket.getOutputStream().flush();
            }
            long start = System.nanoTime();
            RawHttp.Answer live = RawHttp.send(
                    port(),
                    "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close" + "\r\n\r\n",
                    Duration.ofSeconds(10));
            assertEquals(200, live.status(), live::toString);
            assertError(get("/v1/sessions/" + session() + "/context", ACME_KEY), 404, "session_not_found");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "answered in " + took);
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void errorsOfTheHttpLayerAreJson() throws Exception {
        for (String request : List.of(
                "GET /v1/sessions/%zz/context HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}",
                "POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n{}")) {
            RawHttp.Answer answer = RawHttp.send(port(), request, Duration.ofSeconds(10));
            assertEquals(400, answer.status(), answer::toString);
            assertEquals("application/json", answer.header("Content-Type"), answer::toString);
            assertEquals("bad_request", answer.json().path("error").path("code").asText(), answer::toString);
            assertFalse(answer.json().path("error").path("message").asText("").isBlank(), answer::toString);
        }
    }

    @Test
    void aJsonBodyWithAnotherContentTypeIs415() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(app.httpUrl() + "/v1/messages"))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", bearer(ACME_KEY))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(envelope(session(), "u1", "user", "hi")))
                .build();
        assertError(ApiClient.send(request), 415, "unsupported_media_type");
    }

    @Test
    void aSearchWithABadParameterIs400NamingIt() {
        for (String body :
                List.of("{\"query\":\"trains\",\"from\":\"garbage\"}", "{\"query\":\"trains\",\"to\":12345}")) {
            Response reply = send(app, "POST", "/v1/search", bearer(ACME_KEY), body);
            assertError(reply, 400, "invalid_query");
            String named = body.contains("from") ? "'from'" : "'to'";
            assertTrue(reply.json().path("error").path("message").asText().contains(named), reply::text);
        }
        Response tooLong =
                send(app, "POST", "/v1/search", bearer(ACME_KEY), json(Map.of("query", "word ".repeat(100_000))));
        assertError(tooLong, 400, "query_too_long");
    }

    @Test
    void aMemoryWithATimeTheIndexCannotKeepIsRefused() {
        Response reply = send(
                app,
                "POST",
                "/v1/memories",
                bearer(ACME_KEY),
                json(Map.of(
                        "type",
                        "personal",
                        "user",
                        "u1",
                        "content",
                        "likes trains",
                        "conversationTime",
                        "+1000000000-01-01T00:00:00Z")));
        assertError(reply, 400, "invalid_memory");
        assertTrue(reply.json().path("error").path("message").asText().contains("'conversationTime'"), reply::text);
    }

    // ---- start-up without configured keys ------------------------------------------------------

    @Test
    void withoutKeysANonLoopbackAddressIsRefused() {
        Path dataDir = dir.resolve("open");
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> RemeApp.start(AppConfig.of(Map.of(
                        "reme.bootstrap.servers",
                        broker.bootstrapServers(),
                        "reme.data.dir",
                        dataDir.toString(),
                        "reme.http.host",
                        "0.0.0.0",
                        "reme.http.port",
                        "0"))));
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("reme.api.keys")), e::getMessage);
        assertFalse(Files.exists(dataDir.resolve("api-key")));
    }

    @Test
    void withoutKeysOnLoopbackADemoKeyIsGenerated() throws IOException {
        Path dataDir = dir.resolve("demo");
        try (RemeApp demo = RemeApp.start(AppConfig.of(Map.of(
                "reme.bootstrap.servers", broker.bootstrapServers(),
                "reme.request.secret", REQUEST_SECRET,
                "reme.data.dir", dataDir.toString(),
                "reme.http.port", "0",
                // Its own group and topics, so it does not take partitions from the instance under test.
                "reme.application.id", "reme-demo-it",
                "reme.topic.prefix", "demo-it.",
                "reme.topic.partitions", "1",
                "reme.streams.threads", "1")))) {
            String key = demo.generatedApiKey();
            assertNotNull(key);
            assertTrue(key.length() >= 16, key);
            Path file = dataDir.resolve("api-key");
            assertEquals(key, Files.readString(file, StandardCharsets.UTF_8).trim());
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            }

            String session = session();
            Response accepted =
                    send(demo, "POST", "/v1/messages", bearer(key), envelope(session, "me", "user", "demo time"));
            assertEquals(202, accepted.status(), accepted::text);
            assertEquals(
                    "demo/" + session,
                    accepted.json().path("records").path(0).path("key").asText());
            JsonNode context = awaitContext(demo, key, session, 1);
            assertEquals("demo", context.path("tenant").asText());
            assertEquals(List.of("demo time"), texts(context));

            assertError(
                    send(demo, "GET", "/v1/sessions/" + session + "/context", bearer(ACME_KEY), null),
                    401,
                    "unauthorized");
            assertError(send(demo, "GET", "/v1/sessions/" + session + "/context", null, null), 401, "unauthorized");
            // The generated key is the demo instance's only: the keyed instance does not accept it.
            assertError(get("/v1/sessions/" + session + "/context", key), 401, "unauthorized");
        }
    }
}
