package io.reme.api;

import io.reme.http.ErrorBody;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's one failure: every refusal or fault a service, the authentication or the server itself
 * answers is one of these, and the API server alone turns it into its status, headers and JSON
 * {@link #body()} (one mapper, {@code Exchange#sendError}; {@code McpTools} makes it a tool error with
 * the same code and message).
 */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ApiException.class);
    private final int status;
    private final String code;
    private final Integer retryAfterSeconds;
    private final String allow;

    public ApiException(int status, String code, String message) {
        this(status, code, message, null, null);
    }

    private ApiException(int status, String code, String message, Integer retryAfterSeconds, String allow) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
        this.allow = allow;
    }

    /** 503 with {@code Retry-After}: the store is moving (rebalance, restore); asking again soon will work. */
    public static ApiException unavailable(String message) {
        return new ApiException(503, "unavailable", message, 1, null);
    }

    /**
     * 503 with {@code Retry-After} for a dependency that failed (Kafka, a store, the embedding model): the answer
     * says what could not be done, the server log says why ({@code cause}, whose message names library classes).
     */
    public static ApiException unavailable(String message, Throwable cause) {
        LOG.warn("answered 503: {}", message, cause);
        return unavailable(message);
    }

    /** 429 with {@code Retry-After}: the tenant is past one of its quotas on this instance. */
    public static ApiException tooManyRequests(String message, int retryAfterSeconds) {
        return new ApiException(429, "too_many_requests", message, Math.max(1, retryAfterSeconds), null);
    }

    /** 500: the server's own fault, whose details stay in its log. */
    public static ApiException internal() {
        return new ApiException(500, "internal_error", "internal error; see the server log");
    }

    /** 413: a request body past the server's limit. */
    public static ApiException tooLarge(int maxBodyBytes) {
        return new ApiException(413, "too_large", "request body is larger than " + maxBodyBytes + " bytes");
    }

    /** 401: no key, or a key that is not a tenant's. */
    public static ApiException unauthorized() {
        return new ApiException(401, "unauthorized", "send the tenant's API key as 'Authorization: Bearer <key>'");
    }

    /** The JSON error body: {@code {"error":{"code","message"}}}. */
    public Map<String, Object> body() {
        return ErrorBody.of(code, getMessage());
    }

    /** 405 with the {@code Allow} header naming the method the route takes. */
    public static ApiException methodNotAllowed(String allowed) {
        return new ApiException(405, "method_not_allowed", "use " + allowed, null, allowed);
    }

    public String allow() {
        return allow;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public Integer retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
