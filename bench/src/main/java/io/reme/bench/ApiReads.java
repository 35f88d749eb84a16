package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Consumer;

/** The fault benches' reads of the HTTP API: an answer counts only as a 200, anything else is "not now". */
final class ApiReads {
    private ApiReads() {}

    /** {@code GET url} with the tenant's key: its JSON body, or null unless the answer is 200. */
    static JsonNode get(HttpClient http, String url, String key) {
        return get(http, url, key, failure -> {});
    }

    /**
     * As {@link #get(HttpClient, String, String)}, telling {@code failed} why there is no answer: the
     * status, or the exception's simple name (refused, timed out).
     */
    static JsonNode get(HttpClient http, String url, String key, Consumer<String> failed) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + key)
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        try {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() == 200) {
                return Json.MAPPER.readTree(response.body());
            }
            failed.accept(String.valueOf(response.statusCode()));
            return null;
        } catch (IOException e) {
            failed.accept(e.getClass().getSimpleName());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
