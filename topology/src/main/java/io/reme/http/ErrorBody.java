package io.reme.http;

import java.util.Map;

/**
 * The one shape of every error the HTTP server answers, its own (Jetty's, {@link JsonErrorHandler})
 * and the API's: {@code {"error":{"code","message"}}}.
 */
public final class ErrorBody {
    private ErrorBody() {}

    public static Map<String, Object> of(String code, String message) {
        return Map.of("error", Map.of("code", code, "message", message));
    }
}
