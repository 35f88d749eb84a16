package io.reme.edge;

import io.reme.api.ApiException;
import io.reme.api.cluster.InstanceProof;
import io.reme.api.context.MessageIngest;
import io.reme.api.diary.DiaryWriter;
import io.reme.api.erasure.UserErasure;
import io.reme.api.memory.MemoryWriter;
import io.reme.api.memory.SearchSetup;
import io.reme.api.tenant.TenantSetup;
import io.reme.edge.Authenticator.Access;
import io.reme.http.AdmissionGate;
import io.reme.http.WebServer;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.session.SessionSettings;
import io.reme.topic.Topics;
import io.reme.worker.MemoryLookup;
import io.reme.worker.MemoryQuota;
import io.reme.workspace.Workspace;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API on a {@link WebServer} (Jetty): reads each request's body without holding a thread,
 * admits it through the bounded queue, authenticates the bearer token, routes it ({@link RouteTable},
 * the one list of what the server answers) to its handler ({@link Endpoints}) and turns every failure
 * into a JSON error; {@code /mcp} goes to the MCP server after the same authentication. Lifecycle:
 * {@link #start} once, {@link #close} once.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    private static final String OPENAPI_RESOURCE = "/openapi.json";

    private final WebServer server;
    /** Request bodies above this are refused before they are read. */
    private final int maxBodyBytes;
    /** Requests handed to workers, running or waiting. */
    private final AdmissionGate gate;

    private final Endpoints endpoints;
    private final McpEndpoint mcp;
    private final TenantSetup tenants;
    private final Authenticator authenticator;
    private final PrometheusMetrics metrics;

    private ApiServer(Builder parts) throws IOException {
        this.server = parts.server;
        this.metrics = Objects.requireNonNull(parts.metrics, "metrics");
        this.maxBodyBytes = server.settings().maxBodyBytes();
        this.gate = AdmissionGate.of(server.settings());
        this.endpoints = new Endpoints(parts, openApiDocument());
        this.tenants = parts.tenants;
        this.authenticator = new Authenticator(tenants, InstanceProof.of(parts.settings.requestSecret()));
        this.mcp = new McpEndpoint(authenticator, endpoints.mcpTools(), maxBodyBytes);
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
        final WebServer server;
        KafkaStreams streams;
        HostInfo self;
        SessionSettings settings;
        String encoding;
        MessageIngest ingest;
        SearchSetup search;
        PrometheusMetrics metrics;
        MemoryWriter writer;
        Duration visibilityTimeout;
        StreamThreadFailures failures;
        Topics topics;
        Producer<byte[], byte[]> erasureProducer;
        DiaryWriter diaryWriter;
        Workspace workspace;
        TenantSetup tenants;

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

        /** What {@code /metrics} exports; searches and every routed answer are timed into it. */
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
                Exchange exchange = new Exchange(request, response, callback, api.metrics::request);
                // Set before anything answers, so it is on every answer: the MCP transport's (JSON, event
                // streams, its own errors) as well as ours. A browser must not guess what a body is.
                response.getHeaders().put(Exchange.NOSNIFF_HEADER, "nosniff");
                int authorizations = exchange.authorizations();
                if (authorizations > 1) {
                    // Which one would count is a guess an attacker could steer; a client sends one.
                    exchange.sendError(new ApiException(
                            400,
                            "invalid_authorization",
                            "send one Authorization header (this request has " + authorizations + ")"));
                    return true;
                }
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
        return endpoints.erasure();
    }

    /** Existing memories as the LLM workers of this instance see them (through this instance's search fan-out). */
    public MemoryLookup memoryLookup() {
        return endpoints.memoryLookup();
    }

    /** The tenants' memory count limits as the LLM workers of this instance hold extractions to them. */
    public MemoryQuota memoryQuota() {
        return endpoints.memoryQuota();
    }

    public int port() {
        return server.port();
    }

    /** Every route the server answers, as {@code METHOD /path/{param}}, in table order. */
    public static List<String> routes() {
        return RouteTable.routes();
    }

    /** The access each route declares, keyed as {@link #routes()} names the routes, in table order. */
    static Map<String, Access> access() {
        return RouteTable.access();
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
        Executor workers = workers(exchange.request());
        if (!exchange.hasBody()) {
            dispatch(exchange, workers);
            return;
        }
        if (exchange.contentLength() > maxBodyBytes) {
            exchange.sendError(ApiException.tooLarge(maxBodyBytes));
            return;
        }
        new BodyRead(exchange, workers, maxBodyBytes, read -> dispatch(read, workers)).run();
    }

    /**
     * Hands the request to a worker if the gate lets it in, else answers 503 at once: the bounded
     * queue of requests (Jetty's own queue stays unbounded). Health checks always get in.
     */
    private void dispatch(Exchange exchange, Executor workers) {
        if (!gate.enter(exchange.path().startsWith("/health/"))) {
            exchange.sendError(busy());
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
            tenant = authenticator.callerOf(exchange.authorization()).tenant();
        } catch (ApiException refused) {
            // Any refused key (disabled or deleted tenant, a store not yet readable included) is a plain
            // 401 with the challenge MCP clients look for to start their authorization flow.
            exchange.setHeader("WWW-Authenticate", "Bearer");
            exchange.sendError(ApiException.unauthorized());
            return;
        }
        try {
            tenants.quotas().admitRequest(tenant);
        } catch (ApiException throttled) {
            exchange.sendError(throttled);
            return;
        }
        if (!gate.enter(false)) {
            exchange.sendError(busy());
            return;
        }
        try {
            workers(exchange.request()).execute(() -> {
                try {
                    if (!servlets.handle(exchange.request(), exchange.response(), exchange.callback())) {
                        exchange.sendError(new ApiException(404, "not_found", "no route"));
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
        exchange.handling();
        try {
            RouteTable.serve(exchange, authenticator, endpoints);
        } catch (ApiException e) {
            if (e.status() == 503) {
                // The operator's trace of a fault: which reads were refused while what was moving.
                LOG.info(
                        "request unavailable method={} path={} reason={}",
                        exchange.method(),
                        exchange.path(),
                        e.getMessage());
            }
            exchange.sendError(e);
        } catch (IOException e) {
            LOG.debug("request not read or answer not delivered path={} error={}", exchange.path(), e.toString());
            exchange.fail(e);
        } catch (RuntimeException e) {
            LOG.error("request failed method={} path={}", exchange.method(), exchange.path(), e);
            exchange.sendError(ApiException.internal());
        }
    }

    @Override
    public void close() {
        mcp.close();
        server.close();
    }
}
