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

/**
 * The tests' one HTTP client: calls an instance the way a client does (JSON in, status and text out).
 * Raw-socket tests of malformed requests ({@code RawHttp}) are the only other way tests speak HTTP.
 */
public final class ApiClient {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Status of an answer that never came (refused or broken connection), for pollers that try again. */
    public static final int NO_ANSWER = -1;

    private ApiClient() {}

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

    /** {@code method} on the instance's {@code path} with the tenant's API key. */
    static Response send(RemeApp app, String method, String path, String key, Object body) {
        return send(request(method, app.httpUrl() + path, key, body));
    }

    /** {@code GET url}; {@code key} null sends no Authorization header. */
    public static Response get(String url, String key) {
        return send(request("GET", url, key, null));
    }

    /** {@code POST url} with a JSON body (a string is sent as is, anything else as JSON). */
    public static Response post(String url, String key, Object body) {
        return send(request("POST", url, key, body));
    }

    /**
     * A request with a 30 s timeout; {@code key} null sends no Authorization header, {@code body} null no body,
     * a string body is sent as is and anything else as JSON.
     */
    public static HttpRequest request(String method, String url, String key, Object body) {
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
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        bytes == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(bytes));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        return request.build();
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

    /**
     * The answer as Java's client gives it, for a test that reads headers or needs to see a failure to
     * answer ({@link IOException}) itself.
     */
    public static HttpResponse<String> raw(HttpRequest request) throws IOException {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Sends the request; no answer (a refused or broken connection) is status {@link #NO_ANSWER}. */
    public static Response trySend(HttpRequest request) {
        try {
            return Response.of(HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return new Response(NO_ANSWER, null, "", null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
