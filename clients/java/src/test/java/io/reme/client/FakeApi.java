package io.reme.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A scripted stand-in for the API on the JDK's HTTP server: answers each request with the next scripted answer (a
 * 500 when the script is spent) and records what it was asked.
 */
final class FakeApi implements AutoCloseable {
    /** One answer: status, headers, JSON body. */
    record Answer(int status, Map<String, String> headers, String body) {
        static Answer json(int status, String body) {
            return new Answer(status, Map.of(), body);
        }

        static Answer error(int status, String code, String message, Map<String, String> headers) {
            return new Answer(
                    status, headers, "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}}");
        }
    }

    /** One request as it arrived. */
    record Request(String method, String pathAndQuery, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst())
                    .findFirst()
                    .orElse(null);
        }
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile Function<List<Request>, Answer> otherwise =
            asked -> Answer.error(500, "script_spent", "no answer scripted", Map.of());

    FakeApi() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    FakeApi answer(Answer... answers) {
        script.addAll(List.of(answers));
        return this;
    }

    /** How to answer once the script is spent, from the requests so far. */
    FakeApi otherwise(Function<List<Request>, Answer> value) {
        otherwise = value;
        return this;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Request> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(new Request(
                exchange.getRequestMethod(),
                exchange.getRequestURI().getRawPath()
                        + (exchange.getRequestURI().getRawQuery() == null
                                ? ""
                                : "?" + exchange.getRequestURI().getRawQuery()),
                Map.copyOf(exchange.getRequestHeaders()),
                body));
        Answer answer = script.poll();
        if (answer == null) {
            answer = otherwise.apply(requests());
        }
        answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
