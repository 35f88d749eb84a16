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
public final class MemoryApi {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private MemoryApi() {}

    /** An HTTP answer as a test sees it; {@code contentType} and {@code allow} are null when not sent. */
    public record Response(int status, String contentType, String text, String allow) {
        public static Response of(HttpResponse<String> response) {
            return new Response(
                    response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(null),
                    response.body(),
                    response.headers().firstValue("Allow").orElse(null));
        }

        public JsonNode json() {
            try {
                return Json.MAPPER.readTree(text);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + text, e);
            }
        }

        public String errorCode() {
            return json().path("error").path("code").asText(null);
        }
    }

    static Response send(RemeApp app, String method, String path, String key, Object body) {
        byte[] bytes;
        try {
            bytes = body == null
                    ? null
                    : body instanceof String s
                            ? s.getBytes(StandardCharsets.UTF_8)
                            : Json.MAPPER.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return send(HttpRequest.newBuilder(URI.create(app.httpUrl() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key)
                .method(
                        method,
                        bytes == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(bytes))
                .build());
    }

    /** Sends the request; a failure to get an answer fails the test. */
    public static Response send(HttpRequest request) {
        try {
            return Response.of(HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new AssertionError(request.method() + " " + request.uri().getPath() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
