package io.reme.edge;

import static io.reme.edge.Authenticator.Access.ADMIN;
import static io.reme.edge.Authenticator.Access.INTERNAL;
import static io.reme.edge.Authenticator.Access.PUBLIC;
import static io.reme.edge.Authenticator.Access.TENANT;

import io.opentelemetry.context.Scope;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.cluster.InstanceProof;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.erasure.UserErasure;
import io.reme.api.memory.MemoryQueries;
import io.reme.api.memory.SearchQueries;
import io.reme.api.session.SessionListing;
import io.reme.edge.Authenticator.Access;
import io.reme.trace.RecordTracing;
import io.reme.trace.TraceHeaders;
import io.reme.ui.UiAssets;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.http.pathmap.MappedResource;
import org.eclipse.jetty.http.pathmap.PathMappings;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;

/**
 * The one list of what the API answers ({@link #ROUTES}): each route's method, URI template, the
 * access its caller needs and its handler in {@link Endpoints}, matched through Jetty's path mappings.
 * The OpenAPI description ({@code /openapi.json}) is checked against it. Immutable; thread-safe.
 */
final class RouteTable {
    /**
     * Handles one matched request from a caller the route's {@link Access} admitted; {@code params} are
     * the path's {@code {name}} segments by name.
     */
    @FunctionalInterface
    private interface RouteHandler {
        void handle(Endpoints api, Exchange exchange, Caller caller, Map<String, String> params) throws IOException;
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
                    (api, exchange, caller, params) -> exchange.sendJson(200, Map.of("status", "UP"))),
            Route.of("GET", "/health/ready", PUBLIC, Endpoints::ready),
            Route.of("GET", "/metrics", PUBLIC, Endpoints::metrics),
            Route.of("GET", "/openapi.json", PUBLIC, Endpoints::openApi),
            Route.of("GET", "/asyncapi.json", PUBLIC, Endpoints::asyncApi),
            Route.of("GET", "/v1/sessions/{session}/context", TENANT, Endpoints::context),
            Route.of("GET", "/v1/diary/{user}/{document}", TENANT, Endpoints::diary),
            Route.of("POST", "/v1/search", TENANT, Endpoints::search),
            Route.of("POST", SearchQueries.INTERNAL_PATH, INTERNAL, Endpoints::internalSearch),
            Route.of("POST", "/v1/messages", TENANT, Endpoints::messages),
            // retrieve before {id}: the template would take "retrieve" for an id.
            Route.of("POST", "/v1/memories/retrieve", TENANT, Endpoints::retrieveMemories),
            Route.of("POST", "/v1/memories", TENANT, Endpoints::createMemory),
            Route.of("GET", "/v1/memories", TENANT, Endpoints::listMemories),
            Route.of("GET", "/v1/memories/{id}", TENANT, Endpoints::getMemory),
            Route.of("PUT", "/v1/memories/{id}", TENANT, Endpoints::updateMemory),
            Route.of("DELETE", "/v1/memories/{id}", TENANT, Endpoints::deleteMemory),
            Route.of("GET", MemoryQueries.INTERNAL_GET + "{id}", INTERNAL, Endpoints::internalGetMemory),
            Route.of("GET", MemoryQueries.INTERNAL_PROGRESS + "{id}", INTERNAL, Endpoints::internalMemoryProgress),
            Route.of("POST", MemoryQueries.INTERNAL_LIST, INTERNAL, Endpoints::internalListMemories),
            Route.of("GET", "/v1/sessions", TENANT, Endpoints::listSessions),
            Route.of("POST", SessionListing.INTERNAL_LIST, INTERNAL, Endpoints::internalListSessions),
            Route.of("DELETE", "/v1/users/{user}", TENANT, Endpoints::eraseUser),
            Route.of("GET", "/v1/users/{user}/erasure", TENANT, Endpoints::userErasure),
            Route.of("DELETE", "/v1/tenant", TENANT, Endpoints::eraseTenant),
            Route.of("GET", "/v1/tenant/erasure", TENANT, Endpoints::tenantErasure),
            Route.of("POST", UserErasure.INTERNAL_REPORTS, INTERNAL, Endpoints::internalErasureReports),
            Route.of("PUT", "/v1/diary/{user}/{document}", TENANT, Endpoints::saveDiary),
            Route.of("GET", "/v1/tool-results/{id}", TENANT, Endpoints::toolResult),
            Route.of("GET", "/v1/pipeline", TENANT, Endpoints::pipeline),
            // The memory browser: static files, no key needed to load them (every call they make sends one).
            Route.of("GET", "/ui", PUBLIC, Endpoints::uiRoot),
            Route.of("GET", "/ui/", PUBLIC, (api, exchange, caller, params) -> api.uiFile(exchange, UiAssets.INDEX)),
            Route.of(
                    "GET",
                    "/ui/{file}",
                    PUBLIC,
                    (api, exchange, caller, params) -> api.uiFile(exchange, params.get("file"))),
            Route.of("POST", "/v1/admin/tenants", ADMIN, Endpoints::adminCreateTenant),
            Route.of("GET", "/v1/admin/tenants", ADMIN, Endpoints::adminListTenants),
            Route.of("DELETE", "/v1/admin/tenants/{tenant}", ADMIN, Endpoints::adminDeleteTenant),
            Route.of("POST", "/v1/admin/tenants/{tenant}/keys", ADMIN, Endpoints::adminIssueKey),
            Route.of("GET", "/v1/admin/tenants/{tenant}/keys", ADMIN, Endpoints::adminListKeys),
            Route.of("DELETE", "/v1/admin/tenants/{tenant}/keys/{id}", ADMIN, Endpoints::adminRevokeKey),
            Route.of("PUT", "/v1/admin/tenants/{tenant}/policy", ADMIN, Endpoints::adminPutPolicy));

    /**
     * The routes by URI template, Jetty's path mappings: a literal template wins over one with
     * variables ({@code /v1/memories/retrieve} over {@code /v1/memories/{id}}).
     */
    private static final PathMappings<List<Route>> MAPPINGS = mappings();

    private RouteTable() {}

    private static PathMappings<List<Route>> mappings() {
        Map<String, List<Route>> byPath = new LinkedHashMap<>();
        ROUTES.forEach(route ->
                byPath.computeIfAbsent(route.path(), p -> new ArrayList<>()).add(route));
        PathMappings<List<Route>> mappings = new PathMappings<>();
        byPath.forEach((path, routes) -> mappings.put(new UriTemplatePathSpec(path), List.copyOf(routes)));
        return mappings;
    }

    /** Every route, as {@code METHOD /path/{param}}, in table order. */
    static List<String> routes() {
        return ROUTES.stream().map(route -> route.method() + " " + route.path()).toList();
    }

    /** The access each route declares, keyed as {@link #routes()} names the routes, in table order. */
    static Map<String, Access> access() {
        Map<String, Access> access = new LinkedHashMap<>();
        ROUTES.forEach(route -> access.put(route.method() + " " + route.path(), route.access()));
        return access;
    }

    /**
     * Runs the route of the exchange's method and path with the caller {@code authenticator} admits to
     * it.
     *
     * @throws ApiException 405 (with the methods the path takes) when only the method is wrong, 404 when
     *     no route has the path, or the authenticator's refusal
     */
    static void serve(Exchange exchange, Authenticator authenticator, Endpoints endpoints) throws IOException {
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
                exchange.routedTo(route.method(), route.path());
                exchange.fromInstance(authenticator.fromInstance(
                        method,
                        path,
                        exchange.authorization(),
                        exchange.header(OwnerRouting.FORWARDED_HEADER),
                        exchange.header(InstanceProof.HEADER)));
                Caller caller = authenticator.admit(
                        route.access(), method, path, exchange.authorization(), exchange.forwarded());
                // A traced request's work (a search, the messages it writes) joins the caller's trace.
                try (Scope _ = RecordTracing.parent(TraceHeaders.of(
                                exchange.header(TraceHeaders.TRACEPARENT), exchange.header(TraceHeaders.TRACESTATE)))
                        .makeCurrent()) {
                    route.handler().handle(endpoints, exchange, caller, params);
                }
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
}
