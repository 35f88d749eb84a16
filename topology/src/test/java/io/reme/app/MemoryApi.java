package io.reme.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Calls the memory endpoints of an instance the way a client does (JSON in, status and JSON out). */
final class MemoryApi {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private MemoryApi() {
    }

    record Response(int status, String text) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(text);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + text, e);
            }
        }

        String errorCode() {
            return json().path("error").path("code").asText(null);
        }
    }

    static Response send(RemeApp app, String method, String path, String key, Object body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.httpUrl() + path))
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + key)
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body instanceof String s
                                    ? s.getBytes(StandardCharsets.UTF_8) : Json.MAPPER.writeValueAsBytes(body)));
            HttpResponse<String> response = HTTP.send(request.build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new AssertionError(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
