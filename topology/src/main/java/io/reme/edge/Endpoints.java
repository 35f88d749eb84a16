package io.reme.edge;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.QueryString;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.context.ContextQueries;
import io.reme.api.context.MessageIngest;
import io.reme.api.context.ToolResults;
import io.reme.api.diary.DiaryQueries;
import io.reme.api.diary.DiarySave;
import io.reme.api.erasure.TenantErase;
import io.reme.api.erasure.UserErasure;
import io.reme.api.mcp.McpTools;
import io.reme.api.memory.MemoryCreate;
import io.reme.api.memory.MemoryInput;
import io.reme.api.memory.MemoryListRequest;
import io.reme.api.memory.MemoryQueries;
import io.reme.api.memory.MemoryRetrieval;
import io.reme.api.memory.MemoryUpdate;
import io.reme.api.memory.RetrieveRequest;
import io.reme.api.memory.SearchQueries;
import io.reme.api.memory.SearchRequest;
import io.reme.api.session.SessionListing;
import io.reme.api.tenant.KeyRequest;
import io.reme.api.tenant.TenantAdmin;
import io.reme.api.tenant.TenantCreate;
import io.reme.api.tenant.TenantSetup;
import io.reme.message.SafeId;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.tenant.TenantPolicy;
import io.reme.trace.TraceHeaders;
import io.reme.ui.UiAssets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.header.Headers;

/**
 * The API's endpoints: one method per route of {@link RouteTable}, each taking its request from the
 * {@link Exchange}, calling the service that answers it and sending the answer, over the
 * {@link ApiServices} the application built. Thread-safe: its services are, and it keeps no state of
 * its own.
 */
final class Endpoints {
    private final ContextQueries contexts;
    private final DiaryQueries diaries;
    private final SearchQueries searches;
    private final MessageIngest ingest;
    private final Health health;
    private final PrometheusMetrics metrics;
    private final byte[] openApi;
    private final byte[] asyncApi;
    private final MemoryQueries memories;
    private final MemoryRetrieval retrieval;
    private final ToolResults toolResults;
    private final UiAssets ui = new UiAssets();
    private final SessionListing sessions;
    private final UserErasure erasure;
    private final TenantSetup tenants;

    /**
     * @param openApi the OpenAPI description {@code /openapi.json} serves
     * @param asyncApi the AsyncAPI description of the topics {@code /asyncapi.json} serves
     */
    Endpoints(ApiServices services, byte[] openApi, byte[] asyncApi) {
        this.contexts = services.contexts();
        this.diaries = services.diaries();
        this.searches = services.searches();
        this.ingest = services.ingest();
        this.health = services.health();
        this.metrics = services.metrics();
        this.openApi = openApi;
        this.asyncApi = asyncApi;
        this.memories = services.memories();
        this.retrieval = services.retrieval();
        this.toolResults = services.toolResults();
        this.sessions = services.sessions();
        this.erasure = services.erasure();
        this.tenants = services.tenants();
    }

    /** The MCP tools, over the same services as the routes. */
    McpTools mcpTools() {
        return new McpTools(searches, memories, contexts, ingest, diaries, metrics, tenants.quotas());
    }

    void ready(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        Health.Status status = health.readiness();
        exchange.sendJson(status.ready() ? 200 : 503, status);
    }

    void metrics(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
        exchange.send(200, PrometheusMetrics.CONTENT_TYPE, body);
    }

    void openApi(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.send(200, "application/json", openApi);
    }

    void asyncApi(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.send(200, "application/json", asyncApi);
    }

    void context(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.relay(contexts.context(
                caller,
                params.get("session"),
                ContextQueries.Request.of(QueryString.parse(exchange.rawQuery(), "invalid_query")),
                exchange.forwarded()
                        ? OwnerRouting.Hop.of(
                                exchange.header(OwnerRouting.FORWARDED_HEADER),
                                exchange.header(OwnerRouting.STANDBY_HEADER))
                        : OwnerRouting.Hop.CLIENT));
    }

    void diary(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.relay(diaries.document(caller, params.get("user"), params.get("document"), exchange.forwarded()));
    }

    void saveDiary(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.relay(diaries.save(
                caller, params.get("user"), params.get("document"), exchange.bind(DiarySave.class, DiarySave.INVALID)));
    }

    void toolResult(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        byte[] text = toolResults.read(tenant, params.get("id"));
        // Plain text the browser must never run as a page: the tool's output is anybody's text.
        exchange.setHeader("Content-Security-Policy", "sandbox; default-src 'none'");
        exchange.send(200, "text/plain; charset=utf-8", text);
    }

    void pipeline(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("health", health.readiness());
        body.put("metrics", metrics.pipeline());
        exchange.sendJson(200, body);
    }

    void uiRoot(Exchange exchange, Caller caller, Map<String, String> params) {
        // Relative file names in the page resolve against /ui/, not /.
        exchange.setHeader("Location", "/ui/");
        exchange.send(302, "text/plain; charset=utf-8", new byte[0]);
    }

    void uiFile(Exchange exchange, String name) {
        UiAssets.Asset asset = ui.get(name).orElseThrow(() -> RouteTable.notFound(exchange.method(), exchange.path()));
        UiAssets.headers(asset).forEach(exchange::setHeader);
        if (UiAssets.unchanged(asset, exchange.header("If-None-Match"))) {
            exchange.send(304, asset.contentType(), new byte[0]);
            return;
        }
        exchange.send(200, asset.contentType(), asset.body());
    }

    void search(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        long start = System.nanoTime();
        SearchQueries.Answer answer =
                searches.search(caller, exchange.bind(SearchRequest.class, SearchRequest.INVALID));
        metrics.search(System.nanoTime() - start, answer.partial());
        exchange.sendJson(200, answer);
    }

    void internalSearch(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, searches.internal(caller.tenant(), exchange.readJson()));
    }

    void messages(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        JsonNode body = exchange.readJson();
        tenants.quotas().admitMessages(tenant, body != null && body.isArray() ? Math.max(1, body.size()) : 1);
        Headers trace =
                TraceHeaders.of(exchange.header(TraceHeaders.TRACEPARENT), exchange.header(TraceHeaders.TRACESTATE));
        exchange.sendJson(202, ingest.ingest(tenant, body, trace));
    }

    void adminCreateTenant(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        TenantAdmin.Saved saved = tenants.admin().createTenant(exchange.bind(TenantCreate.class, TenantCreate.INVALID));
        exchange.sendJson(saved.created() ? 201 : 200, saved.tenant());
    }

    void adminListTenants(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, tenants.admin().listTenants());
    }

    void adminDeleteTenant(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, tenants.admin().deleteTenant(params.get("tenant")));
    }

    void adminIssueKey(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        KeyRequest request = exchange.bind(KeyRequest.class, KeyRequest.INVALID);
        exchange.sendJson(201, tenants.admin().issueKey(params.get("tenant"), request));
    }

    void adminListKeys(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, tenants.admin().listKeys(params.get("tenant")));
    }

    void adminRevokeKey(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, tenants.admin().revokeKey(params.get("tenant"), params.get("id")));
    }

    void adminPutPolicy(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        // The tenant's stored policy record itself: its constructor checks the limits.
        TenantPolicy policy = exchange.bind(TenantPolicy.class, "invalid_policy");
        exchange.sendJson(200, tenants.admin().putPolicy(params.get("tenant"), policy));
    }

    void createMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryQueries.Written written =
                memories.create(caller, exchange.bind(MemoryCreate.class, MemoryCreate.INVALID));
        // 202 while searches do not see the write yet.
        exchange.sendJson(written.visible() ? 201 : 202, written);
    }

    void listMemories(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryListRequest request = MemoryListRequest.of(QueryString.parse(exchange.rawQuery(), MemoryInput.INVALID));
        exchange.sendJson(200, memories.list(caller, request));
    }

    void getMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, memories.get(caller, MemoryInput.memoryId(params.get("id"))));
    }

    void updateMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryQueries.Written written = memories.update(
                caller,
                MemoryInput.memoryId(params.get("id")),
                exchange.bind(MemoryUpdate.class, MemoryCreate.INVALID));
        exchange.sendJson(written.visible() ? 200 : 202, written);
    }

    void deleteMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        MemoryQueries.Deleted deleted = memories.delete(caller, MemoryInput.memoryId(params.get("id")));
        exchange.sendJson(deleted.visible() ? 200 : 202, deleted);
    }

    void retrieveMemories(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, retrieval.retrieve(caller, exchange.bind(RetrieveRequest.class, MemoryCreate.INVALID)));
    }

    void internalGetMemory(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.relay(memories.internalGet(caller, MemoryInput.memoryId(params.get("id"))));
    }

    void internalMemoryProgress(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.relay(memories.progress(caller, MemoryInput.memoryId(params.get("id"))));
    }

    void internalListMemories(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        exchange.sendJson(200, memories.internalList(tenant, exchange.readJson()));
    }

    void listSessions(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        SessionListing.Query query =
                SessionListing.parse(tenant, QueryString.parse(exchange.rawQuery(), "invalid_query"));
        exchange.sendJson(200, sessions.list(caller, query));
    }

    void internalListSessions(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        exchange.sendJson(200, sessions.internal(tenant, exchange.readJson()));
    }

    void eraseUser(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        UserErasure.Status status = erasure.eraseUser(caller, params.get("user"));
        exchange.sendJson(status.complete() ? 200 : 202, status);
    }

    void userErasure(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String user = params.get("user");
        String problem = SafeId.problem("user", user);
        if (problem != null) {
            throw new ApiException(400, "invalid_user", problem);
        }
        exchange.sendJson(200, erasure.status(caller, user));
    }

    void eraseTenant(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        UserErasure.requireConfirmation(tenant, exchange.bind(TenantErase.class, TenantErase.INVALID));
        UserErasure.Status status = erasure.eraseTenant(caller);
        exchange.sendJson(status.complete() ? 200 : 202, status);
    }

    void tenantErasure(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        exchange.sendJson(200, erasure.status(caller, null));
    }

    void internalErasureReports(Exchange exchange, Caller caller, Map<String, String> params) throws IOException {
        String tenant = caller.tenant();
        exchange.sendJson(200, erasure.internal(tenant, exchange.readJson()));
    }
}
