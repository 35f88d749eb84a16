package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.Caller;
import io.reme.api.cluster.InstanceClient;
import io.reme.api.cluster.Reply;
import io.reme.api.tenant.ApiKeys;
import io.reme.api.tenant.TenantDirectory;
import io.reme.json.Json;
import io.reme.provider.MergeTask;
import io.reme.search.Hit;
import io.reme.search.MemoryType;
import io.reme.worker.MemoryLookup;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Existing memories for workers that run apart from the Streams app (the {@code workers} command):
 * the same search as {@link SearchMemoryLookup}, sent to an instance's {@code POST /v1/search} with
 * the tenant's own key, so the answer covers every partition. A failed or partial lookup is logged;
 * the merge then compares with what it got (nothing, at worst: the request's own memories only).
 */
public final class HttpMemoryLookup implements MemoryLookup {
    private static final Logger LOG = LoggerFactory.getLogger(HttpMemoryLookup.class);
    private final URI search;
    private final TenantDirectory directory;
    private final InstanceClient client = InstanceClient.outside();

    /** @param baseUrl an instance of the app, e.g. {@code http://reme:8080} */
    public HttpMemoryLookup(String baseUrl, ApiKeys keys) {
        this(baseUrl, TenantDirectory.staticOnly(keys));
    }

    /**
     * @param directory the tenants' static keys and the deployment's secret: a tenant with no static
     *     key (its keys issued through the admin API) is asked for with the key derived from the secret
     */
    public HttpMemoryLookup(String baseUrl, TenantDirectory directory) {
        this.search = InstanceClient.uri(baseUrl, "/v1/search");
        this.directory = directory;
    }

    @Override
    public List<MergeTask.Neighbour> nearest(String tenant, MemoryType type, String target, String text, int k) {
        Caller caller = directory.instanceCaller(tenant);
        if (caller.credential().authorization() == null) {
            LOG.warn("memory lookup skipped: no API key for tenant={}", tenant);
            return List.of();
        }
        Optional<Reply> response =
                client.post(search, caller.credential(), SearchMemoryLookup.request(type, target, text, k));
        if (response.isEmpty()) {
            return List.of();
        }
        if (response.get().status() != 200) {
            LOG.warn(
                    "memory lookup failed tenant={} status={}",
                    tenant,
                    response.get().status());
            return List.of();
        }
        try {
            JsonNode answer = Json.MAPPER.readTree(response.get().body());
            if (answer.path("partial").asBoolean()) {
                LOG.warn(
                        "memory lookup partial tenant={} missingPartitions={}",
                        tenant,
                        answer.path("missingPartitions"));
            }
            List<MergeTask.Neighbour> neighbours = new ArrayList<>();
            for (JsonNode node : answer.path("hits")) {
                neighbours.add(SearchMemoryLookup.neighbour(Json.MAPPER.treeToValue(node, Hit.class)));
            }
            return neighbours;
        } catch (IOException e) {
            LOG.warn("memory lookup failed tenant={} error={}", tenant, e.toString());
            return List.of();
        }
    }
}
