package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.cluster.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The HTTP API of a {@link LocalCluster}'s instances (numbered from 1), as {@code bench cluster} calls it: with
 * the tenant's key, a read counting only when answered 200 ({@link ApiReads}). Thread-safe: the load's threads
 * share one client.
 */
final class ClusterApi {
    private final LocalCluster cluster;
    private final int instances;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ClusterApi(LocalCluster cluster, int instances) {
        this.cluster = cluster;
        this.instances = instances;
    }

    int instances() {
        return instances;
    }

    /** {@code POST path} of JSON {@code body} to the instance with the tenant's key, waiting up to 30 s. */
    HttpResponse<String> post(int instance, String tenant, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.spec().appUrl(instance) + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + cluster.spec().apiKey(tenant))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** A session's context (served, or its whole window), or null unless the instance answers 200. */
    JsonNode context(int instance, String tenant, String session, boolean wholeWindow) {
        return context(instance, tenant, session, wholeWindow, why -> {});
    }

    /** As {@link #context(int, String, String, boolean)}, telling {@code failed} why there is no answer. */
    JsonNode context(int instance, String tenant, String session, boolean wholeWindow, Consumer<String> failed) {
        return ApiReads.get(
                http,
                cluster.spec().appUrl(instance) + "/v1/sessions/" + session + "/context"
                        + (wholeWindow ? "?window=all" : ""),
                cluster.spec().apiKey(tenant),
                failed);
    }

    /** {@code GET path} of the tenant from the first instance that answers 200, or null. */
    JsonNode get(String tenant, String path) {
        for (int instance = 1; instance <= instances; instance++) {
            JsonNode answer = ApiReads.get(
                    http, cluster.spec().appUrl(instance) + path, cluster.spec().apiKey(tenant));
            if (answer != null) {
                return answer;
            }
        }
        return null;
    }
}
