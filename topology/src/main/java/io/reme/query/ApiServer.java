package io.reme.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.session.SessionSettings;
import io.reme.worker.MemoryLookup;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server: authenticates the bearer token, routes to the handlers, and turns every failure
 * into a JSON error. {@link #ROUTES} is the one list of what the server answers; the OpenAPI
 * description ({@code /openapi.json}) is checked against it. Lifecycle: {@link #start} once,
 * {@link #close} once.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    /** Request bodies above this are refused before they are read. */
    private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    private static final String OPENAPI_RESOURCE = "/openapi.json";

    /** Handles one matched request; {@code params} are the path's {@code {name}} segments in order. */
    @FunctionalInterface
    private interface Handler {
        void handle(ApiServer api, HttpExchange exchange, List<String> params) throws IOException;
    }

    /** A method and a path template whose {@code {name}} segments match one non-empty path segment each. */
    private record Route(String method, String path, Pattern pattern, Handler handler) {
        static Route of(String method, String path, Handler handler) {
            return new Route(method, path, Pattern.compile(path.replaceAll("\\{[^/}]+}", "([^/]+)")), handler);
        }
    }

    private static final List<Route> ROUTES = List.of(
            Route.of("GET", "/health/live", (api, exchange, params) ->
                    sendJson(exchange, 200, Map.of("status", "UP"))),
            Route.of("GET", "/health/ready", ApiServer::ready),
            Route.of("GET", "/metrics", ApiServer::metrics),
            Route.of("GET", "/openapi.json", ApiServer::openApi),
            Route.of("GET", "/v1/sessions/{session}/context", ApiServer::context),
            Route.of("GET", "/v1/diary/{user}/{document}", ApiServer::diary),
            Route.of("POST", "/v1/search", ApiServer::search),
            Route.of("POST", SearchQueries.INTERNAL_PATH, ApiServer::internalSearch),
            Route.of("POST", "/v1/messages", ApiServer::messages),
            // retrieve before {id}: the template would take "retrieve" for an id.
            Route.of("POST", "/v1/memories/retrieve", ApiServer::retrieveMemories),
            Route.of("POST", "/v1/memories", ApiServer::createMemory),
            Route.of("GET", "/v1/memories", ApiServer::listMemories),
            Route.of("GET", "/v1/memories/{id}", ApiServer::getMemory),
            Route.of("PUT", "/v1/memories/{id}", ApiServer::updateMemory),
            Route.of("DELETE", "/v1/memories/{id}", ApiServer::deleteMemory),
            Route.of("GET", MemoryQueries.INTERNAL_GET + "{id}", ApiServer::internalGetMemory),
            Route.of("GET", MemoryQueries.INTERNAL_PROGRESS + "{id}", ApiServer::internalMemoryProgress),
            Route.of("POST", MemoryQueries.INTERNAL_LIST, ApiServer::internalListMemories));

    private final HttpServer server;
    private final ExecutorService executor;
    private final ApiKeys keys;
    private final ContextQueries contexts;
    private final DiaryQueries diaries;
    private final SearchQueries searches;
    private final MessageIngest ingest;
    private final Health health;
    private final PrometheusMetrics metrics;
    private final byte[] openApi;
    private final MemoryQueries memories;
    private final SearchMemoryLookup lookup;
    private final MemoryRetrieval retrieval;

    private ApiServer(HttpServer server, ApiKeys keys, KafkaStreams streams, HostInfo self, SessionSettings settings,
            String encoding, MessageIngest ingest, SearchSetup search, PrometheusMetrics metrics,
            MemoryWriter writer, Duration visibilityTimeout) throws IOException {
        this.server = server;
        this.keys = keys;
        this.metrics = metrics;
        this.openApi = openApiDocument();
        OwnerRouting routing = new OwnerRouting(streams, self);
        this.contexts = new ContextQueries(streams, routing, settings, encoding);
        this.diaries = new DiaryQueries(streams, routing);
        this.searches = new SearchQueries(streams, self, search.memoriesTopic(), search.partitions(),
                search.partitioning(), search.embeddings(), search.limits());
        this.ingest = ingest;
        this.health = new Health(streams);
        this.memories = new MemoryQueries(streams, routing, self, search.memoriesTopic(), writer, search.embeddings(),
                visibilityTimeout);
        this.lookup = new SearchMemoryLookup(searches, keys);
        this.retrieval = new MemoryRetrieval(searches);
        this.executor = Executors.newFixedThreadPool(8, runnable -> {
            Thread thread = new Thread(runnable, "reme-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    /**
     * Binds the listening socket without serving yet: the port must be known before Kafka Streams
     * starts, because it is this instance's address for interactive-query routing.
     */
    public static HttpServer bind(String host, int port) throws IOException {
        return HttpServer.create(new InetSocketAddress(host, port), 128);
    }

    /**
     * Starts serving on a socket from {@link #bind}.
     *
     * @param self this instance's address as other instances reach it (Streams' application.server)
     * @param metrics what {@code /metrics} exports; searches are timed into it
     */
    public static ApiServer start(HttpServer bound, ApiKeys keys, KafkaStreams streams, HostInfo self,
            SessionSettings settings, String encoding, MessageIngest ingest, SearchSetup search,
            PrometheusMetrics metrics, MemoryWriter writer, Duration visibilityTimeout) throws IOException {
        ApiServer api = new ApiServer(bound, keys, streams, self, settings, encoding, ingest, search, metrics, writer,
                visibilityTimeout);
        api.server.start();
        LOG.info("http api started address={}:{}", bound.getAddress().getHostString(), api.port());
        return api;
    }

    /** Existing memories as the LLM workers of this instance see them (through this instance's search fan-out). */
    public MemoryLookup memoryLookup() {
        return lookup;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Every route the server answers, as {@code METHOD /path/{param}}, in table order. */
    public static List<String> routes() {
        return ROUTES.stream().map(route -> route.method() + " " + route.path()).toList();
    }

    /** The OpenAPI description served at {@code /openapi.json}, from the classpath. */
    public static byte[] openApiDocument() throws IOException {
        try (InputStream in = ApiServer.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IOException("resource " + OPENAPI_RESOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        }
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            try {
                route(exchange);
            } catch (ApiException e) {
                if (e.allow() != null) {
                    exchange.getResponseHeaders().set("Allow", e.allow());
                }
                if (e.retryAfterSeconds() != null) {
                    exchange.getResponseHeaders().set("Retry-After", Integer.toString(e.retryAfterSeconds()));
                }
                sendJson(exchange, e.status(), Map.of("error", Map.of("code", e.code(), "message", e.getMessage())));
            } catch (RuntimeException e) {
                LOG.error("request failed method={} path={}", exchange.getRequestMethod(),
                        exchange.getRequestURI().getPath(), e);
                sendJson(exchange, 500, Map.of("error", Map.of("code", "internal_error",
                        "message", "internal error; see the server log")));
            }
        } catch (IOException e) {
            LOG.debug("response not delivered path={} error={}", exchange.getRequestURI().getPath(), e.toString());
        }
    }

    private void route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String method = exchange.getRequestMethod();
        Set<String> allowed = new LinkedHashSet<>();
        for (Route route : ROUTES) {
            Matcher matcher = route.pattern().matcher(path);
            if (!matcher.matches()) {
                continue;
            }
            if (!route.method().equals(method)) {
                allowed.add(route.method());
                continue;
            }
            List<String> params = new ArrayList<>(matcher.groupCount());
            for (int group = 1; group <= matcher.groupCount(); group++) {
                params.add(matcher.group(group));
            }
            route.handler().handle(this, exchange, params);
            return;
        }
        if (!allowed.isEmpty()) {
            throw ApiException.methodNotAllowed(String.join(", ", allowed));
        }
        throw notFound(method, path);
    }

    private static ApiException notFound(String method, String path) {
        return new ApiException(404, "not_found", "no route for " + method + " " + path);
    }

    private void ready(HttpExchange exchange, List<String> params) throws IOException {
        Health.Status status = health.readiness();
        sendJson(exchange, status.ready() ? 200 : 503, status);
    }

    private void metrics(HttpExchange exchange, List<String> params) throws IOException {
        byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
        send(exchange, 200, PrometheusMetrics.CONTENT_TYPE, body);
    }

    private void openApi(HttpExchange exchange, List<String> params) throws IOException {
        send(exchange, 200, "application/json", openApi);
    }

    private void context(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        relay(exchange, contexts.context(tenant, params.get(0), forwarded(exchange),
                exchange.getRequestHeaders().getFirst("Authorization")));
    }

    private void diary(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        relay(exchange, diaries.document(tenant, params.get(0), params.get(1), forwarded(exchange),
                exchange.getRequestHeaders().getFirst("Authorization")));
    }

    private void search(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        long start = System.nanoTime();
        SearchQueries.Answer answer = searches.search(tenant, readJson(exchange),
                exchange.getRequestHeaders().getFirst("Authorization"));
        metrics.search(System.nanoTime() - start, answer.partial());
        sendJson(exchange, 200, answer);
    }

    private void internalSearch(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        if (!forwarded(exchange)) {
            throw notFound(exchange.getRequestMethod(), exchange.getRequestURI().getPath());
        }
        sendJson(exchange, 200, searches.internal(tenant, readJson(exchange)));
    }

    private void messages(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        sendJson(exchange, 202, ingest.ingest(tenant, readJson(exchange)));
    }

    private void createMemory(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        reply(exchange, memories.create(tenant, readJson(exchange), authorization(exchange)));
    }

    private void listMemories(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        sendJson(exchange, 200, memories.list(tenant, exchange.getRequestURI().getRawQuery(), authorization(exchange)));
    }

    private void getMemory(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        sendJson(exchange, 200, memories.get(tenant, memoryId(params.get(0)), authorization(exchange)));
    }

    private void updateMemory(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        reply(exchange, memories.update(tenant, memoryId(params.get(0)), readJson(exchange), authorization(exchange)));
    }

    private void deleteMemory(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        reply(exchange, memories.delete(tenant, memoryId(params.get(0)), authorization(exchange)));
    }

    private void retrieveMemories(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = authenticate(exchange);
        sendJson(exchange, 200, retrieval.retrieve(tenant, readJson(exchange), authorization(exchange)));
    }

    private void internalGetMemory(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = internalCaller(exchange);
        relay(exchange, memories.internalGet(tenant, memoryId(params.get(0)), authorization(exchange)));
    }

    private void internalMemoryProgress(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = internalCaller(exchange);
        relay(exchange, memories.progress(tenant, memoryId(params.get(0)), authorization(exchange)));
    }

    private void internalListMemories(HttpExchange exchange, List<String> params) throws IOException {
        String tenant = internalCaller(exchange);
        sendJson(exchange, 200, memories.internalList(tenant, readJson(exchange)));
    }

    /** The tenant of a call between instances; a client that is not forwarded never reaches these routes. */
    private String internalCaller(HttpExchange exchange) {
        String tenant = authenticate(exchange);
        if (!forwarded(exchange)) {
            throw notFound(exchange.getRequestMethod(), exchange.getRequestURI().getPath());
        }
        return tenant;
    }

    private static String authorization(HttpExchange exchange) {
        return exchange.getRequestHeaders().getFirst("Authorization");
    }

    private static String memoryId(String id) {
        String problem = SafeId.problem("memory id", id);
        if (problem != null) {
            throw new ApiException(400, "invalid_memory", problem);
        }
        return id;
    }

    private static void reply(HttpExchange exchange, MemoryQueries.Reply reply) throws IOException {
        sendJson(exchange, reply.status(), reply.body());
    }

    private static boolean forwarded(HttpExchange exchange) {
        return exchange.getRequestHeaders().containsKey(OwnerRouting.FORWARDED_HEADER);
    }

    private static void relay(HttpExchange exchange, OwnerRouting.Answer answer) throws IOException {
        if (answer.retryAfter() != null) {
            exchange.getResponseHeaders().set("Retry-After", answer.retryAfter());
        }
        send(exchange, answer.status(), answer.body());
    }

    private String authenticate(HttpExchange exchange) {
        return keys.tenantOf(exchange.getRequestHeaders().getFirst("Authorization"))
                .orElseThrow(() -> new ApiException(401, "unauthorized",
                        "send the tenant's API key as 'Authorization: Bearer <key>'"));
    }

    private static JsonNode readJson(HttpExchange exchange) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null && Long.parseLong(length) > MAX_BODY_BYTES) {
            throw new ApiException(413, "too_large", "request body is larger than " + MAX_BODY_BYTES + " bytes");
        }
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new ApiException(413, "too_large", "request body is larger than " + MAX_BODY_BYTES + " bytes");
        }
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new ApiException(400, "malformed_json", "request body is not JSON");
        }
    }

    private static void sendJson(HttpExchange exchange, int status, Object body) throws IOException {
        send(exchange, status, Json.MAPPER.writeValueAsBytes(body));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        send(exchange, status, "application/json", body);
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
