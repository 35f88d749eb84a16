package io.reme.edge;

import io.reme.api.ApiException;
import io.reme.api.tenant.TenantSetup;
import io.reme.edge.Authenticator.Access;
import io.reme.http.AdmissionGate;
import io.reme.http.WebServer;
import io.reme.prometheus.PrometheusMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
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
    private static final String ASYNCAPI_RESOURCE = "/asyncapi.json";

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

    private ApiServer(WebServer server, ApiServices services) throws IOException {
        this.server = Objects.requireNonNull(server, "server");
        this.metrics = services.metrics();
        this.maxBodyBytes = server.settings().maxBodyBytes();
        this.gate = AdmissionGate.of(server.settings());
        this.endpoints = new Endpoints(services, openApiDocument(), asyncApiDocument());
        this.tenants = services.tenants();
        this.authenticator = new Authenticator(tenants, services.instances());
        this.mcp = new McpEndpoint(authenticator, endpoints.mcpTools(), maxBodyBytes);
    }

    /** Starts serving {@code services} on the socket from {@link WebServer#bind}. */
    public static ApiServer start(WebServer bound, ApiServices services) throws IOException {
        return start(new ApiServer(bound, services));
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
        return resource(OPENAPI_RESOURCE);
    }

    /** The AsyncAPI description of the topics, served at {@code /asyncapi.json}, from the classpath. */
    public static byte[] asyncApiDocument() throws IOException {
        return resource(ASYNCAPI_RESOURCE);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = ApiServer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("resource " + name + " is missing from the classpath");
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
