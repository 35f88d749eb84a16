package io.reme.edge;

import io.reme.api.cluster.InstanceProof;
import io.reme.api.context.ContextQueries;
import io.reme.api.context.MessageIngest;
import io.reme.api.context.ToolResults;
import io.reme.api.diary.DiaryQueries;
import io.reme.api.erasure.UserErasure;
import io.reme.api.memory.MemoryQueries;
import io.reme.api.memory.MemoryRetrieval;
import io.reme.api.memory.SearchQueries;
import io.reme.api.session.SessionListing;
import io.reme.api.tenant.TenantSetup;
import io.reme.prometheus.PrometheusMetrics;
import java.util.Objects;

/**
 * What the API's routes and MCP tools answer from: the application's services, built once by the application
 * (the workers share some of them) and handed to the edge, which only routes to them.
 *
 * @param contexts sessions' contexts, read from their owners
 * @param ingest {@code POST /v1/messages}
 * @param searches searches over every partition holding the tenant's memories
 * @param memories memories' reads and writes
 * @param retrieval {@code POST /v1/memories/retrieve}
 * @param diaries diary documents and their saves
 * @param toolResults full tool outputs from the working directory
 * @param sessions the session listing
 * @param erasure users and tenants forgotten
 * @param tenants keys, the admin API and the quotas
 * @param health liveness and readiness
 * @param metrics what {@code /metrics} exports, and what every answer is timed into
 * @param instances the proof instances give each other on forwarded requests
 */
public record ApiServices(
        ContextQueries contexts,
        MessageIngest ingest,
        SearchQueries searches,
        MemoryQueries memories,
        MemoryRetrieval retrieval,
        DiaryQueries diaries,
        ToolResults toolResults,
        SessionListing sessions,
        UserErasure erasure,
        TenantSetup tenants,
        Health health,
        PrometheusMetrics metrics,
        InstanceProof instances) {
    public ApiServices {
        Objects.requireNonNull(contexts, "contexts");
        Objects.requireNonNull(ingest, "ingest");
        Objects.requireNonNull(searches, "searches");
        Objects.requireNonNull(memories, "memories");
        Objects.requireNonNull(retrieval, "retrieval");
        Objects.requireNonNull(diaries, "diaries");
        Objects.requireNonNull(toolResults, "toolResults");
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(erasure, "erasure");
        Objects.requireNonNull(tenants, "tenants");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(instances, "instances");
    }
}
