package io.reme.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.session.SessionSettings;
import io.reme.worker.MemoryLookup;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
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
 * into a JSON error. Lifecycle: {@link #start} once, {@link #close} once.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    private static final Pattern CONTEXT = Pattern.compile("/v1/sessions/([^/]+)/context");
    private static final Pattern DIARY = Pattern.compile("/v1/diary/([^/]+)/([^/]+)");
    private static final Pattern MEMORY = Pattern.compile("/v1/memories/([^/]+)");
    /** Request bodies above this are refused before they are read. */
    private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

    private final HttpServer server;
    private final ExecutorService executor;
    private final ApiKeys keys;
    private final ContextQueries contexts;
    private final DiaryQueries diaries;
    private final SearchQueries searches;
    private final MessageIngest ingest;
    private final Health health;
    private final MemoryQueries memories;
    private final SearchMemoryLookup lookup;
    private final MemoryRetrieval retrieval;

    private ApiServer(HttpServer server, ApiKeys keys, KafkaStreams streams, HostInfo self, SessionSettings settings,
            String encoding, MessageIngest ingest, SearchSetup search, MemoryWriter writer,
            Duration visibilityTimeout) {
        this.server = server;
        this.keys = keys;
        OwnerRouting routing = new OwnerRouting(streams, self);
        this.contexts = new ContextQueries(streams, routing, settings, encoding);
        this.diaries = new DiaryQueries(streams, routing);
        this.searches = new SearchQueries(streams, self, search.memoriesTopic(), search.partitions(),
                search.partitioning(), search.embeddings());
        this.ingest = ingest;
        this.health = new Health(streams);
        this.lookup = new SearchMemoryLookup(searches, keys);
        this.retrieval = new MemoryRetrieval(searches);
        this.memories = new MemoryQueries(streams, routing, self, search.memoriesTopic(), writer, search.embeddings(),
                visibilityTimeout);
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
     */
    public static ApiServer start(HttpServer bound, ApiKeys keys, KafkaStreams streams, HostInfo self,
            SessionSettings settings, String encoding, MessageIngest ingest, SearchSetup search, MemoryWriter writer,
            Duration visibilityTimeout) {
        ApiServer api = new ApiServer(bound, keys, streams, self, settings, encoding, ingest, search, writer,
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
        if (path.equals("/health/live")) {
            requireMethod(method, "GET");
            sendJson(exchange, 200, Map.of("status", "UP"));
            return;
        }
        if (path.equals("/health/ready")) {
            requireMethod(method, "GET");
            Health.Status status = health.readiness();
            sendJson(exchange, status.ready() ? 200 : 503, status);
            return;
        }
        Matcher context = CONTEXT.matcher(path);
        if (context.matches()) {
            requireMethod(method, "GET");
            String tenant = authenticate(exchange);
            OwnerRouting.Answer answer = contexts.context(tenant, context.group(1), forwarded(exchange),
                    exchange.getRequestHeaders().getFirst("Authorization"));
            relay(exchange, answer);
            return;
        }
        Matcher diary = DIARY.matcher(path);
        if (diary.matches()) {
            requireMethod(method, "GET");
            String tenant = authenticate(exchange);
            relay(exchange, diaries.document(tenant, diary.group(1), diary.group(2), forwarded(exchange),
                    exchange.getRequestHeaders().getFirst("Authorization")));
            return;
        }
        if (path.equals("/v1/search")) {
            requireMethod(method, "POST");
            String tenant = authenticate(exchange);
            SearchQueries.Answer answer = searches.search(tenant, readJson(exchange),
                    exchange.getRequestHeaders().getFirst("Authorization"));
            sendJson(exchange, 200, answer);
            return;
        }
        if (path.equals(SearchQueries.INTERNAL_PATH)) {
            requireMethod(method, "POST");
            String tenant = authenticate(exchange);
            if (!forwarded(exchange)) {
                throw new ApiException(404, "not_found", "no route for " + method + " " + path);
            }
            sendJson(exchange, 200, searches.internal(tenant, readJson(exchange)));
            return;
        }
        if (path.startsWith("/v1/memories") || path.startsWith("/v1/internal/memories")) {
            routeMemories(exchange, path, method);
            return;
        }
        if (path.equals("/v1/messages")) {
            requireMethod(method, "POST");
            String tenant = authenticate(exchange);
            sendJson(exchange, 202, ingest.ingest(tenant, readJson(exchange)));
            return;
        }
        throw new ApiException(404, "not_found", "no route for " + method + " " + path);
    }

    private void routeMemories(HttpExchange exchange, String path, String method) throws IOException {
        String tenant = authenticate(exchange);
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (path.equals("/v1/memories")) {
            if (method.equals("GET")) {
                sendJson(exchange, 200, memories.list(tenant, exchange.getRequestURI().getRawQuery(), authorization));
            } else {
                requireMethod(method, "POST");
                reply(exchange, memories.create(tenant, readJson(exchange), authorization));
            }
            return;
        }
        if (path.equals("/v1/memories/retrieve")) {
            requireMethod(method, "POST");
            sendJson(exchange, 200, retrieval.retrieve(tenant, readJson(exchange), authorization));
            return;
        }
        Matcher memory = MEMORY.matcher(path);
        if (memory.matches()) {
            String id = memoryId(memory.group(1));
            switch (method) {
                case "GET" -> sendJson(exchange, 200, memories.get(tenant, id, authorization));
                case "PUT" -> reply(exchange, memories.update(tenant, id, readJson(exchange), authorization));
                case "DELETE" -> reply(exchange, memories.delete(tenant, id, authorization));
                default -> throw ApiException.methodNotAllowed("GET, PUT, DELETE");
            }
            return;
        }
        // Calls between instances only: a client never reaches them directly.
        if (!forwarded(exchange)) {
            throw new ApiException(404, "not_found", "no route for " + method + " " + path);
        }
        if (path.startsWith(MemoryQueries.INTERNAL_GET)) {
            requireMethod(method, "GET");
            relay(exchange, memories.internalGet(tenant, memoryId(path.substring(MemoryQueries.INTERNAL_GET.length())),
                    authorization));
        } else if (path.startsWith(MemoryQueries.INTERNAL_PROGRESS)) {
            requireMethod(method, "GET");
            relay(exchange, memories.progress(tenant,
                    memoryId(path.substring(MemoryQueries.INTERNAL_PROGRESS.length())), authorization));
        } else if (path.equals(MemoryQueries.INTERNAL_LIST)) {
            requireMethod(method, "POST");
            sendJson(exchange, 200, memories.internalList(tenant, readJson(exchange)));
        } else {
            throw new ApiException(404, "not_found", "no route for " + method + " " + path);
        }
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

    private static void requireMethod(String actual, String expected) {
        if (!expected.equals(actual)) {
            throw ApiException.methodNotAllowed(expected);
        }
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
        exchange.getResponseHeaders().set("Content-Type", "application/json");
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
