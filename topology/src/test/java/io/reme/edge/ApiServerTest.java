package io.reme.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.cluster.NotStartedStreams;
import io.reme.api.memory.QueryLimits;
import io.reme.api.memory.SearchSetup;
import io.reme.api.tenant.ApiKeys;
import io.reme.api.tenant.TenantDirectory;
import io.reme.app.InstanceServices;
import io.reme.config.AppConfig;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.llm.RequestSecret;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.prometheus.PrometheusText;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import io.reme.ui.UiAssets;
import io.reme.workspace.Workspace;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The API's server on its own (no Kafka: only what answers before a store is asked), with a short
 * idle timeout and the fewest threads allowed: silent and half-sent connections, and requests the
 * HTTP layer itself refuses, sent over raw sockets.
 */
class ApiServerTest {
    private static final String KEY = "acme-key-0123456789abcdef";
    /** The deployment's secret: what another instance proves its calls with. */
    private static final RequestSecret SECRET = RequestSecret.random();

    private static final Duration IDLE = Duration.ofMillis(1_500);
    private static final Duration ANSWER = Duration.ofSeconds(5);

    private static PrometheusMetrics metrics;
    private static ApiServer api;
    private static int port;
    private static Path workspace;

    @BeforeAll
    static void start() throws Exception {
        workspace = Files.createTempDirectory("reme-api-workspace");
        HttpSettings settings = new HttpSettings(IDLE, 8, 64, 16_384, 64 * 1024);
        WebServer server = WebServer.bind("reme-http-test", "127.0.0.1", 0, settings);
        metrics = new PrometheusMetrics(Set.of());
        api = ApiServer.start(server, services(server.port(), workspace));
        port = api.port();
        // Warm up, so the timings below are not class loading's.
        send("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        send(post("/v1/search", "application/json", "{\"query\":\"q\",\"from\":\"garbage\"}"));
    }

    /**
     * The application's services, built as it builds them, over no Kafka: a Streams client never started (nothing
     * here reads a store) and producers that keep what they are given. Every route answers what it would before it
     * reads or writes.
     */
    private static ApiServices services(int port, Path files) {
        AppConfig config = AppConfig.of(Map.of(AppConfig.WORKSPACE_DIR.name(), files.toString()));
        MockProducer<byte[], byte[]> producer = new MockProducer<>();
        Topics topics = Topics.withDefaultPrefix();
        return InstanceServices.build(
                        config,
                        new InstanceServices.Kafka(
                                new NotStartedStreams(), new HostInfo("127.0.0.1", port), topics, producer, producer),
                        config.sessionSettings().withRequestSecret(SECRET),
                        "o200k_base",
                        new SearchSetup(
                                topics.memories(), 1, new MemoryPartitioning(1), null, QueryLimits.DEFAULT, null),
                        metrics,
                        new StreamThreadFailures(3, Duration.ofMinutes(5), Clock.systemUTC()),
                        TenantDirectory.staticOnly(ApiKeys.single("acme", KEY)),
                        "",
                        RecordTracing.OFF)
                .api();
    }

    @AfterAll
    static void stop() {
        if (api != null) {
            api.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (workspace != null) {
            try (Stream<Path> files = Files.walk(workspace)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            } catch (IOException e) {
                // A temp folder left behind is harmless.
            }
        }
    }

    private static String get(String path, String... headers) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + String.join("", headers) + "\r\n";
    }

    private static RawHttp.Answer send(String request) throws Exception {
        return RawHttp.send(port, request, ANSWER);
    }

    private static String post(String path, String contentType, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\nConnection: close\r\n"
                + (contentType == null ? "" : "Content-Type: " + contentType + "\r\n")
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static void assertJsonError(RawHttp.Answer answer, int status, String code) {
        assertEquals(status, answer.status(), answer::toString);
        assertTrue(String.valueOf(answer.header("Content-Type")).startsWith("application/json"), answer::toString);
        assertEquals("nosniff", answer.header("X-Content-Type-Options"), answer::toString);
        JsonNode error = answer.json().path("error");
        assertEquals(code, error.path("code").asText(null), answer::toString);
        assertFalse(error.path("message").asText("").isBlank(), answer::toString);
    }

    @Test
    void everyRouteDeclaresItsAccessAndIsRefusedWithoutAKeyAsItSays() throws Exception {
        Map<String, Authenticator.Access> access = ApiServer.access();
        assertEquals(ApiServer.routes(), List.copyOf(access.keySet()));
        for (Map.Entry<String, Authenticator.Access> route : access.entrySet()) {
            assertNotNull(route.getValue(), route.getKey());
            String method = route.getKey().substring(0, route.getKey().indexOf(' '));
            String path = route.getKey().substring(method.length() + 1).replaceAll("\\{[^/}]+}", "x1");
            String request = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + (method.equals("POST") || method.equals("PUT") ? "Content-Length: 2\r\n\r\n{}" : "\r\n");
            RawHttp.Answer answer = send(request);
            switch (route.getValue()) {
                // A route between instances does not exist for a client, whatever its key (none here).
                case INTERNAL -> assertJsonError(answer, 404, "not_found");
                case TENANT -> {
                    assertJsonError(answer, 401, "unauthorized");
                    assertEquals(
                            "send the tenant's API key as 'Authorization: Bearer <key>'",
                            answer.json().path("error").path("message").asText(),
                            route::getKey);
                }
                // This server has no admin key: its admin routes do not exist for anyone.
                case ADMIN -> assertJsonError(answer, 404, "not_found");
                case PUBLIC -> assertNotEquals(401, answer.status(), route::getKey);
            }
            if (route.getValue() == Authenticator.Access.INTERNAL) {
                // A client's own key does not open a route between instances: it does not exist for it.
                String withKey = request.replace("Host: x\r\n", "Host: x\r\nAuthorization: Bearer " + KEY + "\r\n");
                assertJsonError(send(withKey), 404, "not_found");
            }
        }
    }

    /** A call to {@code path} with the tenant's key as another instance makes it, with {@code proof} (null: none). */
    private static String instanceCall(String method, String path, String key, String proof) {
        String body = "{}";
        return method + " " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
                + "\r\nX-Reme-Forwarded: 10.0.0.9:8080\r\n"
                + (proof == null ? "" : "X-Reme-Instance-Proof: " + proof + "\r\n")
                + "Connection: close\r\n"
                + (method.equals("POST")
                        ? "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body
                        : "\r\n");
    }

    private static String proof(RequestSecret secret, String method, String path, String key, long second) {
        return second + "." + secret.signInstanceCall(method, path, "Bearer " + key, second);
    }

    @Test
    void internalRoutesAnswerOnlyAnInstanceThatProvesTheCallWithTheDeploymentsSecret() throws Exception {
        long now = Clock.systemUTC().instant().getEpochSecond();
        for (Map.Entry<String, Authenticator.Access> route : ApiServer.access().entrySet()) {
            if (route.getValue() != Authenticator.Access.INTERNAL) {
                continue;
            }
            String method = route.getKey().substring(0, route.getKey().indexOf(' '));
            String path = route.getKey().substring(method.length() + 1).replaceAll("\\{[^/}]+}", "x1");
            String wrongPath = path + "x";
            List<String> refused = new ArrayList<>();
            refused.add(null);
            refused.add("");
            refused.add("garbage");
            refused.add(now + ".");
            refused.add(proof(RequestSecret.random(), method, path, KEY, now));
            refused.add(proof(SECRET, method, path, KEY, now - 120));
            refused.add(proof(SECRET, method, path, KEY, now + 120));
            refused.add(proof(SECRET, method, wrongPath, KEY, now));
            refused.add(proof(SECRET, method.equals("GET") ? "POST" : "GET", path, KEY, now));
            refused.add(proof(SECRET, method, path, "another-key-0123456789abcdef", now));
            for (String proof : refused) {
                RawHttp.Answer answer = send(instanceCall(method, path, KEY, proof));
                assertJsonError(answer, 404, "not_found");
                assertEquals(
                        "no route for " + method + " " + path,
                        answer.json().path("error").path("message").asText(),
                        route.getKey() + " with proof " + proof);
            }
            // Proven, the call still needs a tenant's key.
            String stranger = "stranger-key-0123456789abcdef";
            assertJsonError(
                    send(instanceCall(method, path, stranger, proof(SECRET, method, path, stranger, now))),
                    401,
                    "unauthorized");
        }
        // Proven and with a key, a call without its query is told so in the API's words.
        for (String path : List.of("/v1/internal/memories-list", "/v1/internal/search")) {
            RawHttp.Answer answer = send(instanceCall("POST", path, KEY, proof(SECRET, "POST", path, KEY, now)));
            assertJsonError(answer, 400, "invalid_query");
            assertEquals(
                    "'query' is required: an object",
                    answer.json().path("error").path("message").asText(),
                    path);
        }
    }

    @Test
    void withoutAnAdminKeyThereIsNoAdminApi() throws Exception {
        // Not even a tenant's key finds it: the routes answer as if they did not exist.
        assertJsonError(
                send("GET /v1/admin/tenants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                        + "\r\nConnection: close\r\n\r\n"),
                404,
                "not_found");
        assertJsonError(send(post("/v1/admin/tenants", "application/json", "{\"tenant\":\"x\"}")), 404, "not_found");
    }

    @Test
    void silentAndHalfSentConnectionsStarveNoOneAndAreClosedAfterTheIdleTimeout() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        long opened = System.nanoTime();
        try {
            for (int i = 0; i < 32; i++) {
                Socket socket = RawHttp.connect(port);
                sockets.add(socket);
                String half = switch (i % 3) {
                    case 0 -> "";
                    case 1 -> "GET /health/live HTTP/1.1\r\nHost: x\r\n";
                    default ->
                        "POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                                + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\":";
                };
                socket.getOutputStream().write(half.getBytes(StandardCharsets.UTF_8));
                socket.getOutputStream().flush();
            }
            // With 32 silent connections on 8 threads, others are answered at once.
            long start = System.nanoTime();
            RawHttp.Answer live = send("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertEquals(200, live.status(), live::toString);
            RawHttp.Answer search =
                    send(post("/v1/search", "application/json", "{\"query\":\"q\",\"from\":\"garbage\"}"));
            assertJsonError(search, 400, "invalid_query");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(Duration.ofSeconds(1)) < 0, "answered in " + took);

            // Each silent connection is closed once the idle timeout has passed, not before.
            assertNotNull(RawHttp.awaitClosed(sockets.get(0), IDLE.plusSeconds(5)), "an idle connection stayed open");
            Duration idle = Duration.ofNanos(System.nanoTime() - opened);
            assertTrue(idle.compareTo(IDLE) >= 0, "closed after " + idle);
            for (int i = 1; i < sockets.size(); i++) {
                assertNotNull(
                        RawHttp.awaitClosed(sockets.get(i), Duration.ofSeconds(10)),
                        "connection " + i + " ("
                                + (i % 3 == 0 ? "silent" : i % 3 == 1 ? "half-sent headers" : "half-sent body")
                                + ") stayed open");
            }
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void everyHalfSentBodyIsClosedAfterTheIdleTimeout() throws Exception {
        // Jetty's asByteArrayAsync once raced the end of the exchange and left about one of thirty such
        // connections open: 160 of them in rounds leave no room for that.
        List<String> open = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 40; i++) {
                    Socket socket = RawHttp.connect(port);
                    sockets.add(socket);
                    socket.getOutputStream()
                            .write(("POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                                            + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\":")
                                    .getBytes(StandardCharsets.UTF_8));
                }
                for (int i = 0; i < sockets.size(); i++) {
                    if (RawHttp.awaitClosed(sockets.get(i), IDLE.plusSeconds(5)) == null) {
                        open.add(round + "/" + i);
                    }
                }
            } finally {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
        }
        assertTrue(open.isEmpty(), "left open (round/connection): " + open);
    }

    @Test
    void everyAnswerCarriesTheServersTimeFromItsFirstBytesAndIsTimedUnderItsRoute() throws Exception {
        String contexts = PrometheusText.series(
                "reme_http_requests_seconds_count", "route=GET /v1/sessions/{session}/context", "status=4xx");
        String searches = "reme_http_requests_seconds_count{route=\"POST /v1/search\",";
        double contextsBefore = PrometheusText.parse(metrics.scrape()).samples().getOrDefault(contexts, 0.0);
        double searchesBefore = sum(PrometheusText.parse(metrics.scrape()), searches);

        RawHttp.Answer invalid = send(get("/v1/sessions/a%20b/context", "Authorization: Bearer " + KEY + "\r\n"));
        assertJsonError(invalid, 400, "invalid_session");
        assertTrue(serverMillis(invalid)[1] >= 0, invalid::toString);
        // Not routed: answered, but timed under no route.
        assertTrue(serverMillis(send(get("/nowhere")))[0] >= 0);

        // The time runs from the request's first bytes: a body that arrives 300 ms after them is in it...
        // The client holds the body back until the server has answered "100 Continue" to the head, so the
        // server has seen the first bytes before the pause begins, however late it gets to them (a busy
        // machine once delayed them by 35 ms, and a pause timed from the client's write alone was short).
        String body = "{\"query\":\"tea\",\"from\":\"garbage\"}";
        RawHttp.Answer slow;
        try (Socket socket = RawHttp.connect(port)) {
            socket.setSoTimeout((int) ANSWER.toMillis());
            String head = "POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                    + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            RawHttp.Answer proceed = RawHttp.read(socket.getInputStream());
            assertEquals(100, proceed.status(), proceed::toString);
            // A pause, not a wait: a body that is slow to arrive is the test.
            Thread.sleep(300);
            socket.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            slow = RawHttp.read(socket.getInputStream());
        }
        // Refused by the search's own checks, after its body was read: routed and handled by a worker.
        assertJsonError(slow, 400, "invalid_query");
        // ...and in the wait before a worker handles it, since the body is read first.
        assertTrue(serverMillis(slow)[0] >= 300, slow::toString);
        assertTrue(serverMillis(slow)[1] >= 300, slow::toString);

        PrometheusText scrape = PrometheusText.parse(metrics.scrape());
        assertEquals(contextsBefore + 1, scrape.value(contexts));
        assertEquals(searchesBefore + 1, sum(scrape, searches));
        assertTrue(
                scrape.samples().keySet().stream()
                        .filter(k -> k.startsWith("reme_http_requests_seconds_count"))
                        .noneMatch(k -> k.contains("nowhere")),
                "an unrouted path is no label value");
    }

    /**
     * The answer's Server-Timing header in milliseconds: {@code total}, then {@code wait} (NaN without
     * one), which is never longer.
     */
    private static double[] serverMillis(RawHttp.Answer answer) {
        String timing = answer.header("Server-Timing");
        assertNotNull(timing, answer::toString);
        Matcher m = Pattern.compile("total;dur=(\\d+\\.\\d{3})(?:, wait;dur=(\\d+\\.\\d{3}))?")
                .matcher(timing);
        assertTrue(m.matches(), timing);
        double total = Double.parseDouble(m.group(1));
        double wait = m.group(2) == null ? Double.NaN : Double.parseDouble(m.group(2));
        assertFalse(wait > total, timing);
        return new double[] {total, wait};
    }

    private static double sum(PrometheusText scrape, String prefix) {
        return scrape.samples().entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .mapToDouble(Map.Entry::getValue)
                .sum();
    }

    @Test
    void twoAuthorizationHeadersAreRefusedWhateverTheRoute() throws Exception {
        String twice = "Authorization: Bearer " + KEY + "\r\nAuthorization: Bearer other-key-0123456789abcdef\r\n";
        RawHttp.Answer rest = send(get("/v1/sessions/s1/context", twice));
        assertJsonError(rest, 400, "invalid_authorization");
        assertEquals(
                "send one Authorization header (this request has 2)",
                rest.json().path("error").path("message").asText());
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}";
        RawHttp.Answer mcp = send("POST /mcp HTTP/1.1\r\nHost: x\r\n" + twice + "Content-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body);
        assertJsonError(mcp, 400, "invalid_authorization");
        assertEquals("close", mcp.header("Connection"), mcp::toString);
        // One is read as before: past the key to the route's own answer.
        assertJsonError(
                send(get("/v1/tool-results/nothing-here", "Authorization: Bearer " + KEY + "\r\n")),
                400,
                "invalid_tool_result");
    }

    @Test
    void theMcpTransportsOwnAnswersSayNosniffToo() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
        RawHttp.Answer initialized = send("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                + "Connection: close\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        assertEquals(200, initialized.status(), initialized::toString);
        assertEquals("nosniff", initialized.header("X-Content-Type-Options"), initialized::toString);
        // The transport's own refusal (no session named) says it too.
        String list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
        RawHttp.Answer refused = send("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                + "Connection: close\r\nContent-Length: " + list.length() + "\r\n\r\n" + list);
        assertEquals(4, refused.status() / 100, refused::toString);
        assertEquals("nosniff", refused.header("X-Content-Type-Options"), refused::toString);
    }

    /** What an error body must not show a client: a Java or library class, an exception, a stack frame. */
    private static final Pattern IMPLEMENTATION =
            Pattern.compile("\\b(?:java|javax|jakarta|tools|com|org|io|reactor)\\.[a-z]|\\$[A-Z]|Exception|`");

    private static String mcpPost(String body, String session) {
        return "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                + (session == null ? "" : "Mcp-Session-Id: " + session + "\r\n")
                + "Connection: close\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                + "\r\n\r\n" + body;
    }

    @Test
    void errorBodiesSayWhatWasWrongWithoutNamingAClassOrALibrary() throws Exception {
        String deep = "[".repeat(1_200) + "]".repeat(1_200);
        List<String> rest = List.of(
                "{\"query\":\"q\",\"k\":" + deep + "}",
                "{\"query\":\"q\",\"meta\":{\"a\":" + deep + "}}",
                "{\"query\":\"q\",\"k\":123456789012345678901234567890}",
                "{\"query\":{\"a\":1}}",
                "{\"query\":\"q\",\"fusion\":[1]}",
                "{\"query\":\"q\",\"from\":{}}",
                "{\"query\":\"q\",\"users\":{\"a\":1}}",
                "[1,2]",
                "\"q\"",
                "{\"query\":\"q\"");
        for (String path : List.of("/v1/search", "/v1/memories", "/v1/memories/retrieve")) {
            for (String body : rest) {
                RawHttp.Answer answer = send(post(path, "application/json", body));
                assertEquals(4, answer.status() / 100, () -> path + " " + body + ": " + answer);
                assertFalse(
                        IMPLEMENTATION.matcher(answer.body()).find(),
                        () -> path + " " + body.substring(0, Math.min(80, body.length())) + ": " + answer.body());
            }
        }
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
        String session = send(mcpPost(init, null)).header("Mcp-Session-Id");
        assertNotNull(session);
        List<String> mcp = List.of(
                "{\"jsonrpc\":\"2.0\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":\"x\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":[1]}}",
                "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"no/such\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":" + deep + "}",
                "[1,2]",
                "not json",
                "{\"id\":1}");
        for (String body : mcp) {
            for (String named : Arrays.asList(session, null)) {
                RawHttp.Answer answer = send(mcpPost(body, named));
                assertFalse(
                        IMPLEMENTATION.matcher(answer.body()).find(),
                        () -> "/mcp " + body.substring(0, Math.min(80, body.length())) + ": " + answer);
            }
        }
    }

    @Test
    void aRequestRefusedBeforeItsBodyIsReadClosesItsConnection() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}";
        RawHttp.Answer refused = send("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body);
        assertEquals(401, refused.status(), refused::toString);
        assertEquals("close", refused.header("Connection"), refused::toString);
        // A body read before the answer leaves the connection to the client.
        RawHttp.Answer read = send("POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
        assertEquals(400, read.status(), read::toString);
        assertNull(read.header("Connection"), read::toString);
    }

    @Test
    void anActiveConnectionIsNotClosed() throws Exception {
        try (Socket socket = RawHttp.connect(port)) {
            for (int i = 0; i < 3; i++) {
                socket.getOutputStream()
                        .write("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.UTF_8));
                assertEquals(200, RawHttp.read(socket.getInputStream()).status());
                // A pause, not a wait: half the idle timeout between requests is the test.
                Thread.sleep(IDLE.toMillis() / 2);
            }
            assertNull(RawHttp.awaitClosed(socket, IDLE.dividedBy(3)), "closed while in use");
        }
    }

    @Test
    void errorsOfTheHttpLayerAreJson() throws Exception {
        assertJsonError(
                send("GET /v1/sessions/%zz/context HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
                400,
                "bad_request");
        assertJsonError(
                send("POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}"), 400, "bad_request");
        // A coding other than chunked last is malformed framing (RFC 9112 6.3): Jetty answers 400.
        assertJsonError(
                send("POST /v1/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}"), 400, "bad_request");
        assertJsonError(send("HELLO\r\n\r\n"), 400, "bad_request");
        for (String bytes : List.of("%C3", "%FF", "%C3%28", "%u00e4")) {
            RawHttp.Answer answer =
                    send("GET /v1/sessions/a" + bytes + "b/context HTTP/1.1\r\nHost: x\r\nAuthorization: " + "Bearer "
                            + KEY + "\r\nConnection: close\r\n\r\n");
            assertEquals(400, answer.status(), answer::toString);
            assertTrue(
                    answer.json().path("error").path("code").asText().matches("bad_request|invalid_session"),
                    answer::toString);
        }
        assertJsonError(
                send("POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n{}"),
                400,
                "bad_request");
        assertJsonError(
                send("POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY + "\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
                400,
                "bad_request");
        assertJsonError(
                send("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n"),
                431,
                "headers_too_large");
        assertJsonError(send("GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n"), 400, "bad_request");
    }

    @Test
    void aJsonBodyWithAnotherContentTypeIs415() throws Exception {
        String body = "{\"query\":\"q\",\"from\":\"garbage\"}";
        assertJsonError(send(post("/v1/search", "text/plain", body)), 415, "unsupported_media_type");
        assertJsonError(
                send(post("/v1/search", "application/x-www-form-urlencoded", body)), 415, "unsupported_media_type");
        // JSON types, with parameters, and no type at all, reach the handler.
        assertJsonError(send(post("/v1/search", "application/json; charset=utf-8", body)), 400, "invalid_query");
        assertJsonError(send(post("/v1/search", "application/merge-patch+json", body)), 400, "invalid_query");
        assertJsonError(send(post("/v1/search", null, body)), 400, "invalid_query");
    }

    @Test
    void aBodyOverTheLimitIs413BeforeItIsRead() throws Exception {
        assertJsonError(
                send("POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                        + "\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"),
                413,
                "too_large");
        String big = "{\"query\":\"" + "a".repeat(70_000) + "\"}";
        String chunked = "POST /v1/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + Integer.toHexString(big.length()) + "\r\n" + big + "\r\n0\r\n\r\n";
        assertJsonError(send(chunked), 413, "too_large");
    }

    @Test
    void routesStillAnswerTheirOwnErrors() throws Exception {
        assertJsonError(send("GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 404, "not_found");
        assertJsonError(
                send("GET /v1/sessions/s1/context HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
                401,
                "unauthorized");
        // Dots, encoded dots and characters outside ids reach the id check undecoded by Jetty's normalisation.
        for (String session : List.of("..", "%2E%2E", "%2e", "a%20b", "%C3%A4", "-leading-dash")) {
            assertJsonError(
                    send("GET /v1/sessions/" + session + "/context HTTP/1.1\r\nHost: x\r\nAuthorization: " + "Bearer "
                            + KEY + "\r\nConnection: close\r\n\r\n"),
                    400,
                    "invalid_session");
        }
        // An encoded NUL Jetty refuses itself, in any URI.
        assertJsonError(
                send("GET /v1/sessions/a%00b/context HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + KEY
                        + "\r\nConnection: close\r\n\r\n"),
                400,
                "bad_request");
    }

    @Test
    void theBrowserIsServedFromTheJarWithAStrictPolicyAndRevalidation() throws Exception {
        RawHttp.Answer root = send(get("/ui"));
        assertEquals(302, root.status(), root::toString);
        assertEquals("/ui/", root.header("Location"));

        RawHttp.Answer page = send(get("/ui/"));
        assertEquals(200, page.status(), page::toString);
        assertTrue(page.header("Content-Type").startsWith("text/html"), page::toString);
        assertTrue(page.body().contains("<script type=\"module\" src=\"app.js\">"), page.body());
        assertEquals(UiAssets.CONTENT_SECURITY_POLICY, page.header("Content-Security-Policy"));
        assertTrue(page.header("Content-Security-Policy").startsWith("default-src 'self'"));
        assertEquals("nosniff", page.header("X-Content-Type-Options"));
        assertEquals("no-referrer", page.header("Referrer-Policy"));
        assertEquals("no-cache", page.header("Cache-Control"));
        String etag = page.header("ETag");
        assertNotNull(etag);

        RawHttp.Answer again = send(get("/ui/", "If-None-Match: " + etag + "\r\n"));
        assertEquals(304, again.status(), again::toString);
        assertEquals("", again.body());

        RawHttp.Answer script = send(get("/ui/app.js"));
        assertEquals(200, script.status(), script::toString);
        assertTrue(script.header("Content-Type").startsWith("text/javascript"), script::toString);
        assertNotEquals(etag, script.header("ETag"));

        // Only flat names of known kinds: nothing else on the classpath is reachable.
        for (String path : List.of(
                "/ui/missing.js", "/ui/..%2Fopenapi.json", "/ui/%2E%2E", "/ui/logback.xml", "/ui/App.js", "/ui/.js")) {
            assertJsonError(send(get(path)), 404, "not_found");
        }
        assertJsonError(
                send("POST /ui/app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 405, "method_not_allowed");
    }

    @Test
    void aStoredToolOutputIsReadForTheCallersTenantOnly() throws Exception {
        String id = "0123456789abcdef0123456789abcdef";
        Workspace files = new Workspace(workspace);
        Files.createDirectories(files.toolResultDir("acme"));
        Files.writeString(files.toolResultFile("acme", id), "line 1\n<script>alert(1)</script>\n");
        String other = "fedcba9876543210fedcba9876543210";
        Files.createDirectories(files.toolResultDir("globex"));
        Files.writeString(files.toolResultFile("globex", other), "globex's secret output");

        String auth = "Authorization: Bearer " + KEY + "\r\n";
        RawHttp.Answer mine = send(get("/v1/tool-results/" + id, auth));
        assertEquals(200, mine.status(), mine::toString);
        assertEquals("line 1\n<script>alert(1)</script>\n", mine.body());
        assertTrue(mine.header("Content-Type").startsWith("text/plain"), mine::toString);
        assertEquals("nosniff", mine.header("X-Content-Type-Options"));
        assertTrue(mine.header("Content-Security-Policy").contains("sandbox"), mine::toString);

        assertJsonError(send(get("/v1/tool-results/" + other, auth)), 404, "tool_result_not_found");
        assertJsonError(send(get("/v1/tool-results/" + id)), 401, "unauthorized");
        for (String bad : List.of("..", "%2E%2E", "ABCDEF0123456789abcdef0123456789", "123")) {
            assertJsonError(send(get("/v1/tool-results/" + bad, auth)), 400, "invalid_tool_result");
        }
        // An encoded slash makes another path, which no route has.
        assertJsonError(send(get("/v1/tool-results/..%2Facme%2Ftool_result%2F" + id, auth)), 404, "not_found");
    }
}
