package io.reme.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the errors Jetty makes itself (a request it cannot parse, a bad URI or Content-Length,
 * an unsupported Transfer-Encoding, headers over the limit, a handler that threw) the way the API
 * answers its own: {@code {"error":{"code","message"}}} as {@code application/json}, never an HTML
 * page. Jetty calls {@link #handle} for all of them, requests it refused while parsing included.
 */
public final class JsonErrorHandler extends ErrorHandler {
    private static final Logger LOG = LoggerFactory.getLogger(JsonErrorHandler.class);

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus() >= 400 ? response.getStatus() : 500;
        Object message = request.getAttribute(ERROR_MESSAGE);
        Object cause = request.getAttribute(ERROR_EXCEPTION);
        if (cause instanceof TimeoutException) {
            // The idle timeout passed while the request was still arriving.
            status = 408;
            message = "the request was not sent within the idle timeout";
        }
        if (status == 500 && cause instanceof Throwable thrown && !(thrown instanceof IOException)) {
            LOG.error(
                    "request failed method={} path={}",
                    request.getMethod(),
                    request.getHttpURI().getPath(),
                    thrown);
        } else {
            LOG.debug(
                    "request refused method={} path={} status={} reason={}",
                    request.getMethod(),
                    request.getHttpURI().getPath(),
                    status,
                    cause != null ? cause : message);
        }
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.write(true, ByteBuffer.wrap(body(status, message == null ? null : message.toString())), callback);
        return true;
    }

    /** The JSON error body for {@code status}; a server error's own text stays in the log. */
    static byte[] body(int status, String reason) {
        String message = status == 500 || reason == null || reason.isBlank()
                ? (status == 500 ? "internal error; see the server log" : HttpStatus.getMessage(status))
                : reason;
        try {
            return Json.MAPPER.writeValueAsBytes(ErrorBody.of(code(status), message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The API's code for a status Jetty answers with. */
    static String code(int status) {
        return switch (status) {
            case 400 -> "bad_request";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 408 -> "request_timeout";
            case 411 -> "length_required";
            case 413 -> "too_large";
            case 414 -> "uri_too_long";
            case 415 -> "unsupported_media_type";
            case 431 -> "headers_too_large";
            case 500 -> "internal_error";
            case 501 -> "not_implemented";
            case 503 -> "unavailable";
            case 505 -> "http_version_not_supported";
            default -> "http_" + status;
        };
    }
}
