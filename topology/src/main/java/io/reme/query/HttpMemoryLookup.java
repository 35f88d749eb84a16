package io.reme.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import io.reme.provider.MergeTask;
import io.reme.search.Hit;
import io.reme.search.MemoryType;
import io.reme.worker.MemoryLookup;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
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
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final URI search;
    private final TenantDirectory directory;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** @param baseUrl an instance of the app, e.g. {@code http://reme:8080} */
    public HttpMemoryLookup(String baseUrl, ApiKeys keys) {
        this(baseUrl, TenantDirectory.staticOnly(keys));
    }

    /**
     * @param directory the tenants' static keys and the deployment's secret: a tenant with no static
     *     key (its keys issued through the admin API) is asked for with the key derived from the secret
     */
    public HttpMemoryLookup(String baseUrl, TenantDirectory directory) {
        this.search = URI.create(baseUrl.replaceAll("/+$", "") + "/v1/search");
        this.directory = directory;
    }

    @Override
    public List<MergeTask.Neighbour> nearest(String tenant, MemoryType type, String target, String text, int k) {
        Optional<String> authorization = directory.internalAuthorization(tenant);
        if (authorization.isEmpty()) {
            LOG.warn("memory lookup skipped: no API key for tenant={}", tenant);
            return List.of();
        }
        try {
            byte[] body = Json.MAPPER.writeValueAsBytes(SearchMemoryLookup.request(type, target, text, k));
            HttpResponse<byte[]> response = http.send(
                    HttpRequest.newBuilder(search)
                            .timeout(TIMEOUT)
                            .header("Authorization", authorization.get())
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                LOG.warn("memory lookup failed tenant={} status={}", tenant, response.statusCode());
                return List.of();
            }
            JsonNode answer = Json.MAPPER.readTree(response.body());
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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
