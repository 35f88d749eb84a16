package io.reme.client;

import java.io.Serial;
import java.time.Duration;
import java.util.Optional;

/**
 * An answer of the API that is not a success: its HTTP status, the API's error code ({@code session_not_found},
 * {@code version_conflict}, ...), its message and, on a 429 or 503, how long the server asked to wait. Each status
 * a caller handles differently has its own subclass, so a {@code catch (RemeException.Conflict e)} reads as the case
 * it handles; any other status is a plain {@code RemeException}.
 */
public class RemeException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final String detail;
    private final Duration retryAfter;

    RemeException(int status, String code, String detail, Duration retryAfter) {
        super(status + " " + code + ": " + detail, null, false, true);
        this.status = status;
        this.code = code;
        this.detail = detail;
        this.retryAfter = retryAfter;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The API's error code, or {@code http_<status>} when the answer carried no error body. */
    public String code() {
        return code;
    }

    /** The API's message: what was wrong, naming the field or parameter. */
    public String detail() {
        return detail;
    }

    /** The server's {@code Retry-After}, when it sent one. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** The exception for an answer of this status, code and message. */
    static RemeException of(int status, String code, String detail, Duration retryAfter) {
        return switch (status) {
            case 400 -> new BadRequest(code, detail);
            case 401 -> new Unauthorized(code, detail);
            case 404 -> new NotFound(code, detail);
            case 409 -> new Conflict(code, detail);
            case 413 -> new PayloadTooLarge(code, detail);
            case 429 -> new RateLimited(code, detail, retryAfter);
            case 503 -> new Unavailable(code, detail, retryAfter);
            default ->
                status >= 500
                        ? new ServerError(status, code, detail, retryAfter)
                        : new RemeException(status, code, detail, retryAfter);
        };
    }

    /** 400: the request is wrong; the message names the field or parameter. */
    public static final class BadRequest extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        BadRequest(String code, String detail) {
            super(400, code, detail, null);
        }
    }

    /** 401: no key, or one the server does not know. */
    public static final class Unauthorized extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        Unauthorized(String code, String detail) {
            super(401, code, detail, null);
        }
    }

    /** 404: no such session, memory, document or erasure for this tenant. */
    public static final class NotFound extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        NotFound(String code, String detail) {
            super(404, code, detail, null);
        }
    }

    /** 409: the memory or document is not at the version the request was based on, or a quota is full. */
    public static final class Conflict extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        Conflict(String code, String detail) {
            super(409, code, detail, null);
        }
    }

    /** 413: the body is over the server's limit. */
    public static final class PayloadTooLarge extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        PayloadTooLarge(String code, String detail) {
            super(413, code, detail, null);
        }
    }

    /** 429: the tenant is past its quota; the client sent it again up to its {@code maxRetries} first. */
    public static final class RateLimited extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        RateLimited(String code, String detail, Duration retryAfter) {
            super(429, code, detail, retryAfter);
        }
    }

    /**
     * 503: the server is rebalancing, restoring, busy or could not reach a dependency; the client sent it again up to
     * its {@code maxRetries} first.
     */
    public static final class Unavailable extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        Unavailable(String code, String detail, Duration retryAfter) {
            super(503, code, detail, retryAfter);
        }
    }

    /** Any other 5xx: the server's own fault (its log says why). */
    public static final class ServerError extends RemeException {
        @Serial
        private static final long serialVersionUID = 1L;

        ServerError(int status, String code, String detail, Duration retryAfter) {
            super(status, code, detail, retryAfter);
        }
    }
}
