package io.reme.prometheus;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics} alone, for processes without the HTTP API (the {@code workers} command), so
 * Prometheus scrapes them like the instances. Lifecycle: {@link #start}, {@link #close}.
 */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;

    private MetricsServer(HttpServer server) {
        this.server = server;
    }

    /** Serves {@code metrics} on {@code host:port} (0 picks a free port). */
    public static MetricsServer start(String host, int port, PrometheusMetrics metrics) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.createContext("/", exchange -> answer(exchange, metrics));
        server.start();
        return new MetricsServer(server);
    }

    private static void answer(HttpExchange exchange, PrometheusMetrics metrics) throws IOException {
        try (exchange) {
            boolean found = exchange.getRequestURI().getPath().equals("/metrics");
            if (found && !exchange.getRequestMethod().equals("GET")) {
                exchange.getResponseHeaders().set("Allow", "GET");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = found ? metrics.scrape().getBytes(StandardCharsets.UTF_8)
                    : "only /metrics here\n".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", found ? PrometheusMetrics.CONTENT_TYPE : "text/plain");
            exchange.sendResponseHeaders(found ? 200 : 404, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
