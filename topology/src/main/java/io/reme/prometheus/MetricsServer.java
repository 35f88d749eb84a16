package io.reme.prometheus;

import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /metrics} alone, for processes without the HTTP API (the {@code workers} command), so
 * Prometheus scrapes them like the instances. Runs on a {@link WebServer} with the API's limits.
 * Lifecycle: {@link #start}, {@link #close}.
 */
public final class MetricsServer implements AutoCloseable {
    private final WebServer server;

    private MetricsServer(WebServer server) {
        this.server = server;
    }

    /** Serves {@code metrics} on {@code host:port} (0 picks a free port). */
    public static MetricsServer start(String host, int port, PrometheusMetrics metrics) throws IOException {
        return start(host, port, HttpSettings.DEFAULT, metrics);
    }

    /** Serves {@code metrics} on {@code host:port} (0 picks a free port) with {@code settings}' limits. */
    public static MetricsServer start(String host, int port, HttpSettings settings, PrometheusMetrics metrics)
            throws IOException {
        WebServer server = WebServer.bind("reme-metrics", host, port, settings);
        try {
            server.start(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    answer(request, response, callback, metrics);
                    return true;
                }
            });
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return new MetricsServer(server);
    }

    private static void answer(Request request, Response response, Callback callback, PrometheusMetrics metrics) {
        boolean found = request.getHttpURI().getPath().equals("/metrics");
        if (found && !request.getMethod().equals("GET")) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET");
            send(response, callback, 405, "application/json", error("method_not_allowed", "use GET"));
            return;
        }
        if (!found) {
            send(response, callback, 404, "application/json", error("not_found", "only /metrics here"));
            return;
        }
        send(
                response,
                callback,
                200,
                PrometheusMetrics.CONTENT_TYPE,
                metrics.scrape().getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] error(String code, String message) {
        try {
            return Json.MAPPER.writeValueAsBytes(Map.of("error", Map.of("code", code, "message", message)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(Response response, Callback callback, int status, String contentType, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
