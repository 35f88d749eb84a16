package io.reme.api;

import static io.reme.api.Authenticator.Access.ADMIN;
import static io.reme.api.Authenticator.Access.INTERNAL;
import static io.reme.api.Authenticator.Access.PUBLIC;
import static io.reme.api.Authenticator.Access.TENANT;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.Authenticator.Access;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.cluster.StoreLags;
import io.reme.api.context.ContextQueries;
import io.reme.api.context.MessageIngest;
import io.reme.api.context.ToolResults;
import io.reme.api.diary.DiaryQueries;
import io.reme.api.diary.DiarySave;
import io.reme.api.diary.DiaryWriter;
import io.reme.api.erasure.TenantErase;
import io.reme.api.erasure.UserErasure;
import io.reme.api.mcp.McpEndpoint;
import io.reme.api.mcp.McpTools;
import io.reme.api.memory.MemoryCreate;
import io.reme.api.memory.MemoryInput;
import io.reme.api.memory.MemoryListRequest;
import io.reme.api.memory.MemoryQueries;
import io.reme.api.memory.MemoryRetrieval;
import io.reme.api.memory.MemoryUpdate;
import io.reme.api.memory.MemoryWriter;
import io.reme.api.memory.RetrieveRequest;
import io.reme.api.memory.SearchMemoryLookup;
import io.reme.api.memory.SearchQueries;
import io.reme.api.memory.SearchRequest;
import io.reme.api.memory.SearchSetup;
import io.reme.api.session.SessionListing;
import io.reme.api.tenant.KeyRequest;
import io.reme.api.tenant.TenantAdmin;
import io.reme.api.tenant.TenantCreate;
import io.reme.api.tenant.TenantSetup;
import io.reme.context.ContextPolicy;
import io.reme.http.AdmissionGate;
import io.reme.http.WebServer;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.session.SessionSettings;
import io.reme.tenant.TenantPolicy;
import io.reme.topic.Topics;
import io.reme.ui.UiAssets;
import io.reme.worker.MemoryLookup;
import io.reme.worker.MemoryQuota;
import io.reme.workspace.Workspace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.MappedResource;
import org.eclipse.jetty.http.pathmap.PathMappings;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.URIUtil;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API on a {@link WebServer} (Jetty): authenticates the bearer token, routes to the
 * handlers, and turns every failure into a JSON error. {@link #ROUTES} is the one list of what the
 * server answers; the OpenAPI description ({@code /openapi.json}) is checked against it. Lifecycle:
 * {@link #start} once, {@link #close} once.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    private static final String OPENAPI_RESOURCE = "/openapi.json";
    /** Set on a read a standby replica answered because the owner did not: it may miss the owner's last commit. */
    static final String SERVED_BY_HEADER = "X-Reme-Served-By";

    /**
     * Handles one matched request from a caller the route's {@link Access} admitted; {@code params} are
     * the path's {@code {name}} segments by name.
     */
    @FunctionalInterface
    private interface RouteHandler {
        void handle(ApiServer api, Exchange exchange, Caller caller, Map<String, String> params) throws IOException;
    }

    /**
     * A method and a URI template whose {@code {name}} segments match one non-empty path segment each,
     * with the access its caller needs.
     */
    private record Route(String method, String path, Access access, RouteHandler handler) {
        Route {
            Objects.requireNonNull(access, "access");
        }

        static Route of(String method, String path, Access access, RouteHandler handler) {
            return new Route(method, path, access, handler);
        }
    }

    private static final List<Route> ROUTES = List.of(
            Route.of(
                    "GET",
                    "/health/live",
                    PUBLIC,
                    (api, exchange, caller, params) -> sendJson(exchange, 200, Map.of("status", "UP"))),
            Route.of("GET", "/health/ready", PUBLIC, ApiServer::ready),
            Route.of("GET", "/metrics", PUBLIC, ApiServer::metrics),
            Route.of("GET", "/openapi.json", PUBLIC, ApiServer::openApi),
            Route.of("GET", "/v1/sessions/{session}/context", TENANT, ApiServer::context),
            Route.of("GET", "/v1/diary/{user}/{document}", TENANT, ApiServer::diary),
            Route.of("POST", "/v1/search", TENANT, ApiServer::search),
            Route.of("POST", SearchQueries.INTERNAL_PATH, INTERNAL, ApiServer::internalSearch),
            Route.of("POST", "/v1/messages", TENANT, ApiServer::messages),
            // retrieve before {id}: the template would take "retrieve" for an id.
            Route.of("POST", "/v1/memories/retrieve", TENANT, ApiServer::retrieveMemories),
            Route.of("POST", "/v1/memories", TENANT, ApiServer::createMemory),
            Route.of("GET", "/v1/memories", TENANT, ApiServer::listMemories),
            Route.of("GET", "/v1/memories/{id}", TENANT, ApiServer::getMemory),
            Route.of("PUT", "/v1/memories/{id}", TENANT, ApiServer::updateMemory),
            Route.of("DELETE", "/v1/memories/{id}", TENANT, ApiServer::deleteMemory),
            Route.of("GET", MemoryQueries.INTERNAL_GET + "{id}", INTERNAL, ApiServer::internalGetMemory),
            Route.of("GET", MemoryQueries.INTERNAL_PROGRESS + "{id}", INTERNAL, ApiServer::internalMemoryProgress),
            Route.of("POST", MemoryQueries.INTERNAL_LIST, INTERNAL, ApiServer::internalListMemories),
            Route.of("GET", "/v1/sessions", TENANT, ApiServer::listSessions),
            Route.of("POST", SessionListing.INTERNAL_LIST, INTERNAL, ApiServer::internalListSessions),
            Route.of("DELETE", "/v1/users/{user}", TENANT, ApiServer::eraseUser),
            Route.of("GET", "/v1/users/{user}/erasure", TENANT, ApiServer::userErasure),
            Route.of("DELETE", "/v1/tenant", TENANT, ApiServer::eraseTenant),
            Route.of("GET", "/v1/tenant/erasure", TENANT, ApiServer::tenantErasure),
            Route.of("POST", UserErasure.INTERNAL_REPORTS, INTERNAL, ApiServer::internalErasureReports),
            Route.of("PUT", "/v1/diary/{user}/{document}", TENANT, ApiServer::saveDiary),
            Route.of("GET", "/v1/tool-results/{id}", TENANT, ApiServer::toolResult),
            Route.of("GET", "/v1/pipeline", TENANT, ApiServer::pipeline),
            // The memory browser: static files, no key needed to load them (every call they make sends one).
            Route.of("GET", "/ui", PUBLIC, ApiServer::uiRoot),
            Route.of("GET", "/ui/", PUBLIC, (api, exchange, caller, params) -> api.uiFile(exchange, UiAssets.INDEX)),
            Route.of(
                    "GET",
                    "/ui/{file}",
                    PUBLIC,
                    (api, exchange, caller, params) -> api.uiFile(exchange, params.get("file"))),
            Route.of("POST", "/v1/admin/tenants", ADMIN, ApiServer::adminCreateTenant),
            Route.of("GET", "/v1/admin/tenants", ADMIN, ApiServer::adminListTenants),
            Route.of("DELETE", "/v1/admin/tenants/{tenant}", ADMIN, ApiServer::adminDeleteTenant),
            Route.of("POST", "/v1/admin/tenants/{tenant}/keys", ADMIN, ApiServer::adminIssueKey),
            Route.of("GET", "/v1/admin/tenants/{tenant}/keys", ADMIN, ApiServer::adminListKeys),
            Route.of("DELETE", "/v1/admin/tenants/{tenant}/keys/{id}", ADMIN, ApiServer::adminRevokeKey),
            Route.of("PUT", "/v1/admin/tenants/{tenant}/policy", ADMIN, ApiServer::adminPutPolicy));

    /**
     * The routes by URI template, Jetty's path mappings: a literal template wins over one with
     * variables ({@code /v1/memories/retrieve} over {@code /v1/memories/{id}}).
     */
    private static final PathMappings<List<Route>> MAPPINGS = mappings();

    private static PathMappings<List<Route>> mappings() {
        Map<String, List<Route>> byPath = new LinkedHashMap<>();
        ROUTES.forEach(route ->
                byPath.computeIfAbsent(route.path(), p -> new ArrayList<>()).add(route));
        PathMappings<List<Route>> mappings = new PathMappings<>();
        byPath.forEach((path, routes) -> mappings.put(new UriTemplatePathSpec(path), List.copyOf(routes)));
        return mappings;
    }

    private final WebServer server;
    /** Request bodies above this are refused before they are read. */
    private final int maxBodyBytes;
    /** Requests handed to workers, running or waiting. */
    private final AdmissionGate gate;

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
    private final ToolResults toolResults;
    private final UiAssets ui = new UiAssets();
    private final SessionListing sessions;
    private final UserErasure erasure;
    private final McpEndpoint mcp;
    private final TenantSetup tenants;
    private final Authenticator authenticator;

    private ApiServer(Builder parts) throws IOException {
        WebServer server = parts.server;
        KafkaStreams streams = parts.streams;
        HostInfo self = parts.self;
        SessionSettings settings = Objects.requireNonNull(parts.settings, "sessions");
        SearchSetup search = Objects.requireNonNull(parts.search, "search");
        MessageIngest ingest = parts.ingest;
        MemoryWriter writer = parts.writer;
        Duration visibilityTimeout = parts.visibilityTimeout;
        Topics topics = parts.topics;
        TenantSetup tenants = Objects.requireNonNull(parts.tenants, "tenants");
        this.server = server;
        this.tenants = tenants;
        this.authenticator = new Authenticator(tenants);
        this.maxBodyBytes = server.settings().maxBodyBytes();
        this.gate = AdmissionGate.of(server.settings());
        this.metrics = Objects.requireNonNull(parts.metrics, "metrics");
        this.openApi = openApiDocument();
        StoreLags lags = new StoreLags(streams);
        OwnerRouting routing = new OwnerRouting(streams, lags, self);
        // The window a tenant's sessions run under here: its policy's over this instance's settings.
        Function<String, ContextPolicy> windows = tenant -> tenants.directory().contextPolicy(settings, tenant);
        this.contexts = new ContextQueries(streams, routing, windows, parts.encoding);
        this.diaries = new DiaryQueries(streams, routing, parts.diaryWriter);
        this.toolResults = new ToolResults(parts.workspace);
        this.searches = new SearchQueries(
                streams,
                self,
                search.memoriesTopic(),
                search.partitions(),
                search.partitioning(),
                search.embeddings(),
                search.limits(),
                lags,
                search.profiles());
        this.ingest = ingest;
        this.health = new Health(streams, parts.failures);
        this.memories = new MemoryQueries(
                streams,
                routing,
                self,
                search.memoriesTopic(),
                writer,
                search.embeddings(),
                visibilityTimeout,
                tenants.directory());
        this.lookup = new SearchMemoryLookup(searches, tenants.directory());
        this.retrieval = new MemoryRetrieval(searches);
        // Without ingest (a server tested without Kafka) there is no input topic whose partitions to list.
        this.sessions =
                ingest == null ? null : new SessionListing(streams, self, ingest.topic(), ingest::partitions, windows);
        this.erasure = topics == null
                ? null
                : new UserErasure(
                        streams,
                        self,
                        memories,
                        parts.erasureProducer,
                        settings.requestSecret(),
                        topics,
                        parts.workspace,
                        visibilityTimeout);
        this.mcp = new McpEndpoint(
                authenticator,
                new McpTools(searches, memories, contexts, ingest, diaries, metrics, tenants.quotas()),
                maxBodyBytes);
    }

    /**
     * What the API serves from, named one by one; {@link #start} it once everything is set. Parts left
     * unset are absent (a server tested without Kafka sets no streams, ingest, writer or topics).
     */
    public static Builder on(WebServer bound) {
        return new Builder(bound);
    }

    /** The API's collaborators, set by name. Not thread-safe; used once, by one thread, to start a server. */
    public static final class Builder {
        private final WebServer server;
        private KafkaStreams streams;
        private HostInfo self;
        private SessionSettings settings;
        private String encoding;
        private MessageIngest ingest;
        private SearchSetup search;
        private PrometheusMetrics metrics;
        private MemoryWriter writer;
        private Duration visibilityTimeout;
        private StreamThreadFailures failures;
        private Topics topics;
        private Producer<byte[], byte[]> erasureProducer;
        private DiaryWriter diaryWriter;
        private Workspace workspace;
        private TenantSetup tenants;

        private Builder(WebServer server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /**
         * The Streams instance the stores are read from, and this instance's address as other instances
         * reach it (Streams' {@code application.server}).
         */
        public Builder streams(KafkaStreams streams, HostInfo self) {
            this.streams = streams;
            this.self = self;
            return this;
        }

        /** How contexts are assembled, and the token encoding their budgets count in. */
        public Builder sessions(SessionSettings settings, String encoding) {
            this.settings = settings;
            this.encoding = encoding;
            return this;
        }

        /** Where {@code POST /v1/messages} produces to. */
        public Builder ingest(MessageIngest ingest) {
            this.ingest = ingest;
            return this;
        }

        public Builder search(SearchSetup search) {
            this.search = search;
            return this;
        }

        /** What {@code /metrics} exports; searches are timed into it. */
        public Builder metrics(PrometheusMetrics metrics) {
            this.metrics = metrics;
            return this;
        }

        /**
         * Where memories written over HTTP go, and how long a write may wait to become visible to
         * searches before the answer says it is not yet.
         */
        public Builder memories(MemoryWriter writer, Duration visibilityTimeout) {
            this.writer = writer;
            this.visibilityTimeout = visibilityTimeout;
            return this;
        }

        /** The stream threads' failures, which readiness reports. */
        public Builder failures(StreamThreadFailures failures) {
            this.failures = failures;
            return this;
        }

        /**
         * Where erasure requests go, and the transactional producer ({@code initTransactions} done) that
         * writes them to every partition at once; unset, no erasure routes answer (a server tested without
         * Kafka).
         */
        public Builder erasures(Topics topics, Producer<byte[], byte[]> transactionalProducer) {
            this.topics = topics;
            this.erasureProducer = transactionalProducer;
            return this;
        }

        /** Where {@code PUT /v1/diary/...} submits its edits. */
        public Builder diaryWriter(DiaryWriter diaryWriter) {
            this.diaryWriter = diaryWriter;
            return this;
        }

        /** Where the file sinks keep full tool outputs ({@code GET /v1/tool-results/{id}}). */
        public Builder workspace(Workspace workspace) {
            this.workspace = workspace;
            return this;
        }

        /**
         * Authenticates (static keys, then issued ones), serves the admin API and applies the quotas.
         */
        public Builder tenants(TenantSetup tenants) {
            this.tenants = tenants;
            return this;
        }

        /** Starts serving on the socket from {@link WebServer#bind}. */
        public ApiServer start() throws IOException {
            return ApiServer.start(new ApiServer(this));
        }
    }

    private static ApiServer start(ApiServer api) throws IOException {
        WebServer bound = api.server;
        // Non-blocking: Jetty calls it without a thread of its own; accept hands the work to one. The MCP
        // servlet context is its child so that it starts and stops with the server, but is only ever
        // called on a worker (mcp), never on Jetty's thread.
        bound.start(new Handler.Wrapper(api.mcp.handler()) {
            @Override
            public InvocationType getInvocationType() {
                return InvocationType.NON_BLOCKING;
            }

            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Exchange exchange = new Exchange(request, response, callback);
                if (McpEndpoint.serves(exchange.path())) {
                    api.mcp(exchange, getHandler());
                } else {
                    api.accept(exchange);
                }
                return true;
            }
        });
        LOG.info("http api started address={}:{}", bound.host(), api.port());
        return api;
    }

    /** Erases users and tenants (null when the server runs without Kafka topics). */
    public UserErasure erasure() {
        return erasure;
    }

    /** Existing memories as the LLM workers of this instance see them (through this instance's search fan-out). */
    public MemoryLookup memoryLookup() {
        return lookup;
    }

    /** The tenants' memory count limits as the LLM workers of this instance hold extractions to them. */
    public MemoryQuota memoryQuota() {
        return memories::room;
    }

    public int port() {
        return server.port();
    }

    /** Every route the server answers, as {@code METHOD /path/{param}}, in table order. */
    public static List<String> routes() {
        return ROUTES.stream().map(route -> route.method() + " " + route.path()).toList();
    }

    /** The access each route declares, keyed as {@link #routes()} names the routes, in table order. */
    static Map<String, Access> access() {
        Map<String, Access> access = new LinkedHashMap<>();
        ROUTES.forEach(route -> access.put(route.method() + " " + route.path(), route.access()));
        return access;
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

    /**
     * Reads a request's body without holding a thread while it arrives (a client that sends half a
     * body and stops holds nothing but its socket, until the idle timeout closes it), then hands
     * the request to a worker: a virtual thread where the runtime has them, else the server's pool.
     */
    private void accept(Exchange exchange) {
        Executor workers = workers(exchange.request);
        if (!exchange.hasBody()) {
            dispatch(exchange, workers);
            return;
        }
        if (exchange.contentLength() > maxBodyBytes) {
            sendError(exchange, ApiException.tooLarge(maxBodyBytes));
            return;
        }
        new BodyRead(exchange, workers).run();
    }

    /**
     * Reads a body chunk by chunk as it arrives, asking Jetty to call again when more is there; no
     * thread waits in between. A failed read (the idle timeout, a client gone, past the size
     * limit: the server's SizeLimitHandler says 413) fails the exchange, and Jetty answers it through
     * JsonErrorHandler and closes the connection. Written out rather than Jetty's
     * {@code Content.Source.asByteArrayAsync}, which fails the request again after the caller has
     * ended the exchange (a race that left one connection in thirty open after its idle timeout).
     */
    private final class BodyRead implements Runnable {
        private final Exchange exchange;
        private final Executor workers;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();

        BodyRead(Exchange exchange, Executor workers) {
            this.exchange = exchange;
            this.workers = workers;
        }

        @Override
        public void run() {
            while (true) {
                Content.Chunk chunk = exchange.request.read();
                if (chunk == null) {
                    exchange.request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    Throwable failure = chunk.getFailure();
                    LOG.debug("request body not read path={} error={}", exchange.path(), failure.toString());
                    workers.execute(() -> exchange.fail(failure));
                    return;
                }
                try {
                    ByteBuffer bytes = chunk.getByteBuffer();
                    if (body.size() + bytes.remaining() > maxBodyBytes) {
                        workers.execute(() -> exchange.fail(new HttpException.RuntimeException(
                                413, "request body is larger than " + maxBodyBytes + " bytes")));
                        return;
                    }
                    byte[] copy = new byte[bytes.remaining()];
                    bytes.get(copy);
                    body.write(copy, 0, copy.length);
                } finally {
                    chunk.release();
                }
                if (chunk.isLast()) {
                    exchange.body = body.toByteArray();
                    dispatch(exchange, workers);
                    return;
                }
            }
        }
    }

    /**
     * Hands the request to a worker if the gate lets it in, else answers 503 at once: the bounded
     * queue of requests (Jetty's own queue stays unbounded). Health checks always get in.
     */
    private void dispatch(Exchange exchange, Executor workers) {
        if (!gate.enter(exchange.path().startsWith("/health/"))) {
            sendError(exchange, busy());
            return;
        }
        try {
            workers.execute(() -> {
                try {
                    handle(exchange);
                } finally {
                    gate.leave();
                }
            });
        } catch (RejectedExecutionException e) {
            gate.leave();
            exchange.fail(e);
        }
    }

    /**
     * {@code /mcp}: the API's authenticator (401 before the transport sees the request, 429 past the
     * tenant's request quota) and the same admission gate, then the MCP servlet on a worker. The
     * servlet reads its own body (the server's size limit holds for it too) and answers a tool call on
     * this worker; its long-lived event streams go async and release the worker and the gate.
     */
    private void mcp(Exchange exchange, Handler servlets) {
        String tenant;
        try {
            tenant = authenticator.callerOf(authorization(exchange)).tenant();
        } catch (ApiException refused) {
            // Any refused key (disabled or deleted tenant, a store not yet readable included) is a plain
            // 401 with the challenge MCP clients look for to start their authorization flow.
            exchange.setHeader("WWW-Authenticate", "Bearer");
            sendError(exchange, ApiException.unauthorized());
            return;
        }
        try {
            tenants.quotas().admitRequest(tenant);
        } catch (ApiException throttled) {
            sendError(exchange, throttled);
            return;
        }
        if (!gate.enter(false)) {
            sendError(exchange, busy());
            return;
        }
        try {
            workers(exchange.request).execute(() -> {
                try {
                    if (!servlets.handle(exchange.request, exchange.response, exchange.callback)) {
                        sendError(exchange, new ApiException(404, "not_found", "no route"));
                    }
                } catch (Throwable e) {
                    LOG.debug("mcp request failed path={} error={}", exchange.path(), e.toString());
                    exchange.fail(e);
                } finally {
                    gate.leave();
                }
            });
        } catch (RejectedExecutionException e) {
            gate.leave();
            exchange.fail(e);
        }
    }

    /** The answer while the admission gate is full. */
    private static ApiException busy() {
        return ApiException.unavailable("the server is busy; ask again in a moment");
    }

    private static Executor workers(Request request) {
        Executor pool = request.getComponents().getExecutor();
        Executor virtual = VirtualThreads.getVirtualThreadsExecutor(pool);
        return virtual != null ? virtual : pool;
    }

    private void handle(Exchange exchange) {
        try {
            route(exchange);
        } catch (ApiException e) {
            if (e.status() == 503) {
                // The operator's trace of a fault: which reads were refused while what was moving.
                LOG.info(
                        "request unavailable method={} path={} reason={}",
                        exchange.method(),
                        exchange.path(),
                        e.getMessage());
            }
            sendError(exchange, e);
        } catch (IOException e) {
            LOG.debug("request not read or answer not delivered path={} error={}", exchange.path(), e.toString());
            exchange.fail(e);
        } catch (RuntimeException e) {
            LOG.error("request failed method={} path={}", exchange.method(), exchange.path(), e);
            sendError(exchange, ApiException.internal());
        }
    }

    /** The one error mapper: an {@link ApiException} as its status, headers and JSON error body. */
    private static void sendError(Exchange exchange, ApiException e) {
        if (e.allow() != null) {
            exchange.setHeader("Allow", e.allow());
        }
        if (e.retryAfterSeconds() != null) {
            exchange.setHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
        }
        sendJson(exchange, e.status(), e.body());
    }

    private void route(Exchange exchange) throws IOException {
        String path = exchange.path();
        String method = exchange.method();
        List<Route> allowed = new ArrayList<>();
        for (MappedResource<List<Route>> mapped : MAPPINGS.getMatches(path)) {
            for (Route route : mapped.getResource()) {
                if (!route.method().equals(method)) {
                    allowed.add(route);
                    continue;
                }
                Map<String, String> params = ((UriTemplatePathSpec) mapped.getPathSpec()).getPathParams(path);
                Caller caller =
                        authenticator.admit(route.access(), method, path, authorization(exchange), forwarded(exchange));
                route.handler().handle(this, exchange, caller, params);
                return;
            }
        }
        if (!allowed.isEmpty()) {
            // In the table's order, as the OpenAPI description lists them.
            allowed.sort(Comparator.comparingInt(ROUTES::indexOf));
            throw ApiException.methodNotAllowed(String.join(
                    ", ",
                    new LinkedHashSet<>(allowed.stream().map(Route::method).toList())));
        }
        throw notFound(method, path);
    }

    static ApiException notFound(String method, String path) {
        return new ApiException(404, "not_found", "no route for " + method + " " + path);
    }

    private void ready(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        Health.Status status = health.readiness();
        sendJson(exchange, status.ready() ? 200 : 503, status);
    }

    private void metrics(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
        send(exchange, 200, PrometheusMetrics.CONTENT_TYPE, body);
    }

    private void openApi(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        send(exchange, 200, "application/json", openApi);
    }

    private void context(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        relay(
                exchange,
                contexts.context(
                        caller,
                        params.get("session"),
                        ContextQueries.Request.of(QueryString.parse(exchange.rawQuery(), "invalid_query")),
                        OwnerRouting.Hop.of(
                                exchange.header(OwnerRouting.FORWARDED_HEADER),
                                exchange.header(OwnerRouting.STANDBY_HEADER))));
    }

    private void diary(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        relay(exchange, diaries.document(caller, params.get("user"), params.get("document"), forwarded(exchange)));
    }

    private void saveDiary(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        relay(
                exchange,
                diaries.save(
                        caller,
                        params.get("user"),
                        params.get("document"),
                        bind(exchange, DiarySave.class, DiarySave.INVALID)));
    }

    private void toolResult(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        byte[] text = toolResults.read(tenant, params.get("id"));
        // Plain text the browser must never run as a page: the tool's output is anybody's text.
        exchange.setHeader("Content-Security-Policy", "sandbox; default-src 'none'");
        send(exchange, 200, "text/plain; charset=utf-8", text);
    }

    private void pipeline(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("health", health.readiness());
        body.put("metrics", metrics.pipeline());
        sendJson(exchange, 200, body);
    }

    private void uiRoot(Exchange exchange, Caller caller, Map<String, String> params) {
        // Relative file names in the page resolve against /ui/, not /.
        exchange.setHeader("Location", "/ui/");
        send(exchange, 302, "text/plain; charset=utf-8", new byte[0]);
    }

    private void uiFile(Exchange exchange, String name) {
        UiAssets.Asset asset = ui.get(name).orElseThrow(() -> notFound(exchange.method(), exchange.path()));
        UiAssets.headers(asset).forEach(exchange::setHeader);
        if (UiAssets.unchanged(asset, exchange.header("If-None-Match"))) {
            send(exchange, 304, asset.contentType(), new byte[0]);
            return;
        }
        send(exchange, 200, asset.contentType(), asset.body());
    }

    private void search(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        long start = System.nanoTime();
        SearchQueries.Answer answer =
                searches.search(caller, bind(exchange, SearchRequest.class, SearchRequest.INVALID));
        metrics.search(System.nanoTime() - start, answer.partial());
        sendJson(exchange, 200, answer);
    }

    private void internalSearch(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, searches.internal(caller.tenant(), readJson(exchange)));
    }

    private void messages(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        JsonNode body = readJson(exchange);
        tenants.quotas().admitMessages(tenant, body != null && body.isArray() ? Math.max(1, body.size()) : 1);
        sendJson(exchange, 202, ingest.ingest(tenant, body));
    }

    private void adminCreateTenant(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        TenantAdmin.Saved saved =
                tenants.admin().createTenant(bind(exchange, TenantCreate.class, TenantCreate.INVALID));
        sendJson(exchange, saved.created() ? 201 : 200, saved.tenant());
    }

    private void adminListTenants(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, tenants.admin().listTenants());
    }

    private void adminDeleteTenant(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, tenants.admin().deleteTenant(params.get("tenant")));
    }

    private void adminIssueKey(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        KeyRequest request = bind(exchange, KeyRequest.class, KeyRequest.INVALID);
        sendJson(exchange, 201, tenants.admin().issueKey(params.get("tenant"), request));
    }

    private void adminListKeys(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, tenants.admin().listKeys(params.get("tenant")));
    }

    private void adminRevokeKey(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, tenants.admin().revokeKey(params.get("tenant"), params.get("id")));
    }

    private void adminPutPolicy(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        // The tenant's stored policy record itself: its constructor checks the limits.
        TenantPolicy policy = bind(exchange, TenantPolicy.class, "invalid_policy");
        sendJson(exchange, 200, tenants.admin().putPolicy(params.get("tenant"), policy));
    }

    private void createMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryQueries.Written written =
                memories.create(caller, bind(exchange, MemoryCreate.class, MemoryCreate.INVALID));
        // 202 while searches do not see the write yet.
        sendJson(exchange, written.visible() ? 201 : 202, written);
    }

    private void listMemories(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryListRequest request = MemoryListRequest.of(QueryString.parse(exchange.rawQuery(), MemoryInput.INVALID));
        sendJson(exchange, 200, memories.list(caller, request));
    }

    private void getMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, memories.get(caller, MemoryInput.memoryId(params.get("id"))));
    }

    private void updateMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryQueries.Written written = memories.update(
                caller,
                MemoryInput.memoryId(params.get("id")),
                bind(exchange, MemoryUpdate.class, MemoryCreate.INVALID));
        sendJson(exchange, written.visible() ? 200 : 202, written);
    }

    private void deleteMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryQueries.Deleted deleted = memories.delete(caller, MemoryInput.memoryId(params.get("id")));
        sendJson(exchange, deleted.visible() ? 200 : 202, deleted);
    }

    private void retrieveMemories(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(
                exchange, 200, retrieval.retrieve(caller, bind(exchange, RetrieveRequest.class, MemoryCreate.INVALID)));
    }

    private void internalGetMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        relay(exchange, memories.internalGet(caller, MemoryInput.memoryId(params.get("id"))));
    }

    private void internalMemoryProgress(Exchange exchange, Caller caller, Map<String, String> params)
            throws IOException {
        relay(exchange, memories.progress(caller, MemoryInput.memoryId(params.get("id"))));
    }

    private void internalListMemories(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        sendJson(exchange, 200, memories.internalList(tenant, readJson(exchange)));
    }

    private void listSessions(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        SessionListing.Query query =
                SessionListing.parse(tenant, QueryString.parse(exchange.rawQuery(), "invalid_query"));
        sendJson(exchange, 200, sessions.list(caller, query));
    }

    private void internalListSessions(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        sendJson(exchange, 200, sessions.internal(tenant, readJson(exchange)));
    }

    private void eraseUser(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        UserErasure.Status status = erasures().eraseUser(caller, params.get("user"));
        sendJson(exchange, status.complete() ? 200 : 202, status);
    }

    private void userErasure(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String user = params.get("user");
        String problem = SafeId.problem("user", user);
        if (problem != null) {
            throw new ApiException(400, "invalid_user", problem);
        }
        sendJson(exchange, 200, erasures().status(caller, user));
    }

    private void eraseTenant(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        UserErasure.requireConfirmation(tenant, bind(exchange, TenantErase.class, TenantErase.INVALID));
        UserErasure.Status status = erasures().eraseTenant(caller);
        sendJson(exchange, status.complete() ? 200 : 202, status);
    }

    private void tenantErasure(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        sendJson(exchange, 200, erasures().status(caller, null));
    }

    private void internalErasureReports(Exchange exchange, Caller caller, Map<String, String> params)
            throws IOException {
        String tenant = caller.tenant();
        sendJson(exchange, 200, erasures().internal(tenant, readJson(exchange)));
    }

    private UserErasure erasures() {
        if (erasure == null) {
            throw new ApiException(404, "not_found", "erasure is not available on this server");
        }
        return erasure;
    }

    private static String authorization(Exchange exchange) {
        return exchange.header("Authorization");
    }

    private static boolean forwarded(Exchange exchange) {
        return exchange.header(OwnerRouting.FORWARDED_HEADER) != null;
    }

    private static void relay(Exchange exchange, OwnerRouting.Answer answer) throws IOException {
        if (answer.retryAfter() != null) {
            exchange.setHeader("Retry-After", answer.retryAfter());
        }
        if (answer.standby()) {
            exchange.setHeader(SERVED_BY_HEADER, "standby");
        }
        send(exchange, answer.status(), answer.body());
    }

    /** The body as a request record, bound and validated by {@link BodyBinder} (415 unless JSON). */
    private static <T> T bind(Exchange exchange, Class<T> type, String code) {
        requireJson(exchange);
        return BodyBinder.bind(exchange.body, type, code);
    }

    private JsonNode readJson(Exchange exchange) throws IOException {
        requireJson(exchange);
        try {
            return Json.MAPPER.readTree(exchange.body == null ? new byte[0] : exchange.body);
        } catch (IOException e) {
            throw new ApiException(400, "malformed_json", "request body is not JSON");
        }
    }

    private static void requireJson(Exchange exchange) {
        String type = exchange.header("Content-Type");
        if (type != null && !isJson(type)) {
            throw new ApiException(
                    415,
                    "unsupported_media_type",
                    "send the body as JSON with 'Content-Type: " + "application/json' (got '" + type + "')");
        }
    }

    /** {@code application/json} or an {@code application/*+json} type, with any parameters (charset). */
    private static boolean isJson(String contentType) {
        int parameters = contentType.indexOf(';');
        String type = (parameters < 0 ? contentType : contentType.substring(0, parameters))
                .trim()
                .toLowerCase(Locale.ROOT);
        return type.equals("application/json") || type.startsWith("application/") && type.endsWith("+json");
    }

    private static void sendJson(Exchange exchange, int status, Object body) {
        byte[] bytes;
        try {
            bytes = Json.MAPPER.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the answer as JSON", e);
        }
        send(exchange, status, bytes);
    }

    private static void send(Exchange exchange, int status, byte[] body) {
        send(exchange, status, "application/json", body);
    }

    private static void send(Exchange exchange, int status, String contentType, byte[] body) {
        exchange.send(status, contentType, body);
    }

    /**
     * One request and its response on Jetty, as the handlers above use them. The path is decoded but
     * not normalised, so {@code ..} or an encoded slash reaches the id checks instead of another route.
     */
    private static final class Exchange {
        private final Request request;
        private final Response response;
        private final Callback callback;
        /** The whole body, read before the request is handled; null when it has none. */
        private byte[] body;

        private boolean answered;

        Exchange(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = callback;
        }

        String method() {
            return request.getMethod();
        }

        String path() {
            return URIUtil.decodePath(request.getHttpURI().getPath());
        }

        String rawQuery() {
            return request.getHttpURI().getQuery();
        }

        String header(String name) {
            return request.getHeaders().get(name);
        }

        /** The declared body length; -1 when not declared (chunked). */
        long contentLength() {
            return request.getLength();
        }

        /** Whether a body follows the headers (declared length above zero, or chunked). */
        boolean hasBody() {
            return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
        }

        void setHeader(String name, String value) {
            response.getHeaders().put(name, value);
        }

        void send(int status, String contentType, byte[] body) {
            if (answered) {
                return;
            }
            answered = true;
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
            // Every answer says what it is, and a browser must not guess otherwise: JSON that echoes a
            // caller's text is never run as a page or a script.
            response.getHeaders().put("X-Content-Type-Options", "nosniff");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
            response.write(true, ByteBuffer.wrap(body), callback);
        }

        /** Gives up on the exchange: Jetty ends the connection (the client went away mid-request). */
        void fail(Throwable cause) {
            if (!answered) {
                answered = true;
                callback.failed(cause);
            }
        }
    }

    @Override
    public void close() {
        mcp.close();
        server.close();
    }
}
