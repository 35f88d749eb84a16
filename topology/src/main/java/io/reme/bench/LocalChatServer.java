package io.reme.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.reme.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for an OpenAI-compatible endpoint, for {@code bench llm}: every
 * {@code POST /v1/chat/completions} is answered after a fixed latency with the same well-formed
 * summary, so what is measured is the workers, not a model. One thread per request in flight.
 */
final class LocalChatServer implements AutoCloseable {
    static final String MODEL = "bench-model";
    static final String SUMMARY = """
            ## Goal
            - Keep the benchmark's conversation going.

            ## Constraints & Preferences
            (none)

            ## Progress
            ### Done
            - Read the requested files.

            ### In Progress
            (none)

            ### Blocked
            (none)

            ## Key Decisions
            (none)

            ## Next Steps
            1. Carry on.

            ## Critical Context
            - /srv/app/module1/Service.java
            """;

    private final HttpServer server;
    private final ExecutorService executor;
    private final Duration latency;
    private final AtomicLong answered = new AtomicLong();

    private LocalChatServer(Duration latency) {
        this.latency = latency;
        // Headers and body go out as separate writes: without TCP_NODELAY, Nagle's algorithm and delayed
        // ACKs would add tens of milliseconds to every answer.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        AtomicLong threads = new AtomicLong();
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "bench-chat-server-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(executor);
        server.createContext("/v1/chat/completions", this::handle);
        server.start();
    }

    static LocalChatServer start(Duration latency) {
        return new LocalChatServer(latency);
    }

    /** The API root to configure the client with. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    long answered() {
        return answered.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            try {
                Thread.sleep(latency.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            byte[] body = completion().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            answered.incrementAndGet();
        }
    }

    private static String completion() {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-bench");
        root.put("object", "chat.completion");
        root.put("created", System.currentTimeMillis() / 1000);
        root.put("model", MODEL);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", SUMMARY);
        message.putNull("refusal");
        choice.putNull("logprobs");
        choice.put("finish_reason", "stop");
        ObjectNode usage = root.putObject("usage");
        usage.put("prompt_tokens", 1000);
        usage.put("completion_tokens", 80);
        usage.put("total_tokens", 1080);
        return root.toString();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
