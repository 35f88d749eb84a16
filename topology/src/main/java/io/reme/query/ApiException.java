package io.reme.query;

/** An error answered to the caller as JSON {@code {"error":{"code","message"}}} with an HTTP status. */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
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

    /** 429 with {@code Retry-After}: the tenant is past one of its quotas on this instance. */
    public static ApiException tooManyRequests(String message, int retryAfterSeconds) {
        return new ApiException(429, "too_many_requests", message, Math.max(1, retryAfterSeconds), null);
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
