package io.reme.query;

/** An error answered to the caller as JSON {@code {"error":{"code","message"}}} with an HTTP status. */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String code;
    private final Integer retryAfterSeconds;

    public ApiException(int status, String code, String message) {
        this(status, code, message, null);
    }

    private ApiException(int status, String code, String message, Integer retryAfterSeconds) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 503 with {@code Retry-After}: the store is moving (rebalance, restore); asking again soon will work. */
    public static ApiException unavailable(String message) {
        return new ApiException(503, "unavailable", message, 1);
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
