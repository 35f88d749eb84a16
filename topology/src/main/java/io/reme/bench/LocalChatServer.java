package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for an OpenAI-compatible endpoint, for {@code bench llm} and {@code bench soak}: every
 * {@code POST /v1/chat/completions} is answered after a fixed latency, so what is measured is the
 * workers, not a model. A summary request gets the same well-formed summary; a diary request is
 * played as a model would, through the read and write tools, writing one line per message marker
 * ({@link #MARKER}) of its conversation; a memory request gets no memories. The {@link Mode} can be
 * switched while it runs, to fail, stall or refuse long prompts. One thread per request in flight.
 */
final class LocalChatServer implements AutoCloseable {
    static final String MODEL = "bench-model";
    /** What {@code bench soak} puts in every message, so a diary line can be traced to its message. */
    static final Pattern MARKER = Pattern.compile("\\[soak:[A-Za-z0-9_.-]+]");
    private static final String DIARY_SYSTEM_START = "You keep a user's diary";

    /** How the endpoint answers. */
    enum Mode {
        /** Well-formed answers after the latency. */
        GOOD,
        /** HTTP 500 for everything. */
        FAILING,
        /** No answer for {@link #SLOW_ANSWER}, longer than any sane client timeout. */
        SLOW,
        /** HTTP 400 {@code context_length_exceeded} for prompts over the context limit, else {@link #GOOD}. */
        CONTEXT_LIMITED
    }

    static final Duration SLOW_ANSWER = Duration.ofSeconds(30);

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
    private final AtomicReference<Mode> mode = new AtomicReference<>(Mode.GOOD);
    private final int contextLimitChars;

    private LocalChatServer(Duration latency, int contextLimitChars) {
        this.latency = latency;
        this.contextLimitChars = contextLimitChars;
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
        return new LocalChatServer(latency, Integer.MAX_VALUE);
    }

    /** An endpoint that, in {@link Mode#CONTEXT_LIMITED}, refuses request bodies over {@code contextLimitChars}. */
    static LocalChatServer start(Duration latency, int contextLimitChars) {
        return new LocalChatServer(latency, contextLimitChars);
    }

    void mode(Mode next) {
        mode.set(next);
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
            byte[] request;
            try (InputStream in = exchange.getRequestBody()) {
                request = in.readAllBytes();
            }
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            Mode now = mode.get();
            try {
                Thread.sleep(now == Mode.SLOW ? SLOW_ANSWER.toMillis() : latency.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (now == Mode.FAILING) {
                send(exchange, 500, error("the bench endpoint is failing on purpose", "server_error", null));
                return;
            }
            if (now == Mode.CONTEXT_LIMITED && request.length > contextLimitChars) {
                send(exchange, 400, error("This model's maximum context length is " + contextLimitChars
                        + " characters; the request has " + request.length + ".", "invalid_request_error",
                        "context_length_exceeded"));
                return;
            }
            send(exchange, 200, answer(Json.MAPPER.readTree(request)));
            answered.incrementAndGet();
        }
    }

    private static void send(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static String error(String message, String type, String code) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error").put("message", message).put("type", type);
        if (code == null) {
            error.putNull("code");
        } else {
            error.put("code", code);
        }
        return root.toString();
    }

    /** The answer to one chat request, by what its system message asks for. */
    private static String answer(JsonNode request) {
        JsonNode messages = request.path("messages");
        String system = messages.path(0).path("content").asText("");
        if (system.startsWith(DIARY_SYSTEM_START)) {
            return diaryTurn(request);
        }
        if (request.has("response_format") || system.contains("JSON")) {
            return completion("{\"memories\":[]}", null);
        }
        return completion(SUMMARY, null);
    }

    /**
     * One turn of the diary tool loop: read the day's document, then write it back with a line per
     * marker of the conversation that it lacks, then say so.
     */
    private static String diaryTurn(JsonNode request) {
        JsonNode messages = request.path("messages");
        JsonNode last = messages.path(messages.size() - 1);
        String document = request.path("tools").path(0).path("function").path("parameters").path("properties")
                .path("document").path("enum").path(0).asText();
        if (!"tool".equals(last.path("role").asText())) {
            return completion(null, toolCall("read", Json.MAPPER.createObjectNode().put("document", document)));
        }
        String result = last.path("content").asText("");
        if (result.startsWith("OK: ")) {
            return completion("Added the conversation's messages to " + document + ".", null);
        }
        StringBuilder content = new StringBuilder(result.startsWith("(") ? "# " + document + "\n" : result);
        if (content.length() > 0 && content.charAt(content.length() - 1) != '\n') {
            content.append('\n');
        }
        Matcher markers = MARKER.matcher(messages.path(1).path("content").asText(""));
        while (markers.find()) {
            if (content.indexOf(markers.group()) < 0) {
                content.append("- ").append(markers.group()).append('\n');
            }
        }
        return completion(null, toolCall("write", Json.MAPPER.createObjectNode().put("document", document)
                .put("content", content.toString())));
    }

    private static ObjectNode toolCall(String name, ObjectNode arguments) {
        ObjectNode call = Json.MAPPER.createObjectNode().put("id", "call_" + name).put("type", "function");
        call.putObject("function").put("name", name).put("arguments", arguments.toString());
        return call;
    }

    private static String completion(String content, ObjectNode toolCall) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-bench");
        root.put("object", "chat.completion");
        root.put("created", System.currentTimeMillis() / 1000);
        root.put("model", MODEL);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (content == null) {
            message.putNull("content");
        } else {
            message.put("content", content);
        }
        if (toolCall != null) {
            message.putArray("tool_calls").add(toolCall);
        }
        message.putNull("refusal");
        choice.putNull("logprobs");
        choice.put("finish_reason", toolCall == null ? "stop" : "tool_calls");
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
