package io.reme.edge;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.BodyBinder;
import io.reme.api.cluster.Reply;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.URIUtil;

/**
 * One request and its response on Jetty, as the API's handlers use them: the request's parts, its
 * body (read in full before a handler runs, by {@link BodyRead}) bound as JSON, and the one way
 * every answer is sent. The path is decoded but not normalised, so {@code ..} or an encoded slash
 * reaches the id checks instead of another route. Used by one thread at a time: Jetty's while the
 * body arrives, then the worker's that handles the request.
 */
final class Exchange {
    /** Set on a read a standby replica answered because the owner did not: it may miss the owner's last commit. */
    static final String SERVED_BY_HEADER = "X-Reme-Served-By";
    /**
     * On every answer (W3C Server Timing), in milliseconds: {@code total} from the request's first bytes
     * to its answer, and {@code wait} from its first bytes until a worker began to handle it (the body's arrival
     * and the wait for a worker; absent if no worker did), so a client can tell the server's time from
     * its own wait and the network's, and the server's waiting from its work.
     */
    static final String SERVER_TIMING_HEADER = "Server-Timing";
    /**
     * On every answer, set by the server's handler before anything answers: what the body is, as the
     * Content-Type says, and nothing a browser guesses (JSON that echoes a caller's text is never run as a
     * page or a script).
     */
    static final String NOSNIFF_HEADER = "X-Content-Type-Options";

    private final Request request;
    private final Response response;
    private final Callback callback;
    private final AnswerTimer timer;
    /** The whole body, read before the request is handled; null when it has none. */
    private byte[] body;

    private boolean answered;
    /** The route that took the request, {@code METHOD /template}; null until one did. */
    private String route;
    /** Set by the route table once the request is proven to come from another instance. */
    private boolean fromInstance;
    /** When a worker began to handle the request ({@link System#nanoTime}); 0 until one did. */
    private long handledFrom;

    /** Told of each routed answer as it is sent: its route, status and time from the request's first bytes. */
    @FunctionalInterface
    interface AnswerTimer {
        void answered(String route, int status, long nanos);
    }

    Exchange(Request request, Response response, Callback callback, AnswerTimer timer) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.timer = timer;
    }

    Request request() {
        return request;
    }

    Response response() {
        return response;
    }

    Callback callback() {
        return callback;
    }

    /** Notes that a worker begins to handle the request now. */
    void handling() {
        handledFrom = System.nanoTime();
    }

    /** Notes the route that took the request, by its template: what its answer is timed under. */
    void routedTo(String method, String template) {
        this.route = method + " " + template;
    }

    /** Keeps the body read in full, for the handler. */
    void body(byte[] read) {
        this.body = read;
    }

    String method() {
        return request.getMethod();
    }

    String path() {
        return URIUtil.decodePath(request.getHttpURI().getPath());
    }

    String rawQuery() {
        return request.getHttpURI().getQuery();
    }

    String header(String name) {
        return request.getHeaders().get(name);
    }

    String authorization() {
        return header("Authorization");
    }

    /** How many Authorization headers the request has: more than one is refused before anything reads them. */
    int authorizations() {
        return request.getHeaders().getFields(HttpHeader.AUTHORIZATION).size();
    }

    /**
     * Whether another instance of the deployment forwarded the request: it says so ({@link
     * OwnerRouting#FORWARDED_HEADER}) and proves it ({@link io.reme.api.cluster.InstanceProof}), as the
     * route table found before running the route.
     */
    boolean forwarded() {
        return fromInstance;
    }

    void fromInstance(boolean proven) {
        this.fromInstance = proven;
    }

    /** The declared body length; -1 when not declared (chunked). */
    long contentLength() {
        return request.getLength();
    }

    /** Whether a body follows the headers (declared length above zero, or chunked). */
    boolean hasBody() {
        return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    /** The body as a request record, bound and validated by {@link BodyBinder} (415 unless JSON). */
    <T> T bind(Class<T> type, String code) {
        requireJson();
        return BodyBinder.bind(body, type, code);
    }

    /** The body as a JSON tree (415 unless JSON, 400 unless it parses). */
    JsonNode readJson() {
        requireJson();
        try {
            return Json.MAPPER.readTree(body == null ? new byte[0] : body);
        } catch (IOException e) {
            throw new ApiException(400, "malformed_json", "request body is not JSON");
        }
    }

    private void requireJson() {
        String type = header("Content-Type");
        if (type != null && !isJson(type)) {
            throw new ApiException(
                    415,
                    "unsupported_media_type",
                    "send the body as JSON with 'Content-Type: " + "application/json' (got '" + type + "')");
        }
    }

    /** {@code application/json} or an {@code application/*+json} type, with any parameters (charset). */
    private static boolean isJson(String contentType) {
        int parameters = contentType.indexOf(';');
        String type = (parameters < 0 ? contentType : contentType.substring(0, parameters))
                .trim()
                .toLowerCase(Locale.ROOT);
        return type.equals("application/json") || type.startsWith("application/") && type.endsWith("+json");
    }

    /** A local or relayed reply as it is: its status, body and headers. */
    void relay(Reply reply) {
        if (reply.retryAfter() != null) {
            setHeader("Retry-After", reply.retryAfter());
        }
        if (reply.standby()) {
            setHeader(SERVED_BY_HEADER, "standby");
        }
        send(reply.status(), reply.body());
    }

    /** The one error mapper: an {@link ApiException} as its status, headers and JSON error body. */
    void sendError(ApiException e) {
        if (e.allow() != null) {
            setHeader("Allow", e.allow());
        }
        if (e.retryAfterSeconds() != null) {
            setHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
        }
        sendJson(e.status(), e.body());
    }

    void sendJson(int status, Object body) {
        byte[] bytes;
        try {
            bytes = Json.MAPPER.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the answer as JSON", e);
        }
        send(status, bytes);
    }

    void send(int status, byte[] body) {
        send(status, "application/json", body);
    }

    void send(int status, String contentType, byte[] body) {
        if (answered) {
            return;
        }
        answered = true;
        long nanos = System.nanoTime() - request.getBeginNanoTime();
        if (route != null) {
            timer.answered(route, status, nanos);
        }
        response.setStatus(status);
        if (this.body == null && hasBody()) {
            // Refused before its body was read (401, 413, 503 at the door): the rest of the body may still
            // be on its way, so the connection cannot carry another request, and the client must know.
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(SERVER_TIMING_HEADER, serverTiming(nanos));
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private String serverTiming(long totalNanos) {
        String total = String.format(Locale.ROOT, "total;dur=%.3f", totalNanos / 1e6);
        if (handledFrom == 0) {
            return total;
        }
        return total + String.format(Locale.ROOT, ", wait;dur=%.3f", (handledFrom - request.getBeginNanoTime()) / 1e6);
    }

    /** Gives up on the exchange: Jetty ends the connection (the client went away mid-request). */
    void fail(Throwable cause) {
        if (!answered) {
            answered = true;
            callback.failed(cause);
        }
    }
}
