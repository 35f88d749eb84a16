package io.reme.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import io.reme.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A stand-in for an OpenAI-compatible endpoint, for {@code bench llm} and {@code bench soak}: every
 * {@code POST /v1/chat/completions} is answered after a fixed latency, so what is measured is the
 * workers, not a model. A summary request gets the same well-formed summary; a diary request is
 * played as a model would, through the read and write tools, writing one line per message marker
 * ({@link #MARKER}) of its conversation; a memory request gets no memories. The {@link Mode} can be
 * switched while it runs, to fail, stall or refuse long prompts. Served by a {@link WebServer}; each
 * request is handed to a thread of its own (one per request in flight), so a request stalled for
 * {@link #SLOW_ANSWER} holds no thread of Jetty's and delays no other.
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

    private static final String PATH = "/v1/chat/completions";

    private final WebServer server;
    private final ExecutorService executor;
    private final Duration latency;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicReference<Mode> mode = new AtomicReference<>(Mode.GOOD);
    private final int contextLimitChars;

    private LocalChatServer(Duration latency, int contextLimitChars) {
        this.latency = latency;
        this.contextLimitChars = contextLimitChars;
        AtomicLong threads = new AtomicLong();
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "bench-chat-server-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        // The connection of a stalled (SLOW) request stays silent for SLOW_ANSWER: the idle timeout is
        // longer, so it is the client's timeout that gives up, as against a real endpoint.
        HttpSettings settings = HttpSettings.DEFAULT.withIdleTimeout(SLOW_ANSWER.multipliedBy(2));
        try {
            server = WebServer.bind("bench-chat", "127.0.0.1", 0, settings);
            server.start(new Handler.Abstract.NonBlocking() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    executor.execute(() -> answer(request, response, callback));
                    return true;
                }
            });
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        }
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
        return "http://127.0.0.1:" + server.port() + "/v1";
    }

    long answered() {
        return answered.get();
    }

    /** Answers one request on a thread of its own; the blocking reads and the sleep happen here. */
    private void answer(Request request, Response response, Callback callback) {
        try {
            handle(request, response, callback);
        } catch (IOException | RuntimeException e) {
            callback.failed(e);
        }
    }

    private void handle(Request request, Response response, Callback callback) throws IOException {
        byte[] body;
        try (InputStream in = Content.Source.asInputStream(request)) {
            body = in.readAllBytes();
        }
        if (!request.getHttpURI().getPath().startsWith(PATH)) {
            send(response, callback, 404, null);
            return;
        }
        if (!request.getMethod().equals("POST")) {
            send(response, callback, 405, null);
            return;
        }
        Mode now = mode.get();
        try {
            Thread.sleep(now == Mode.SLOW ? SLOW_ANSWER.toMillis() : latency.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            callback.failed(e);
            return;
        }
        if (now == Mode.FAILING) {
            send(response, callback, 500, error("the bench endpoint is failing on purpose", "server_error", null));
            return;
        }
        if (now == Mode.CONTEXT_LIMITED && body.length > contextLimitChars) {
            send(
                    response,
                    callback,
                    400,
                    error(
                            "This model's maximum context length is " + contextLimitChars
                                    + " characters; the request has " + body.length + ".",
                            "invalid_request_error",
                            "context_length_exceeded"));
            return;
        }
        String answer = answer(Json.MAPPER.readTree(body));
        // Counted before it is sent: whoever has read an answer sees it counted.
        answered.incrementAndGet();
        send(response, callback, 200, answer);
    }

    /** Sends {@code json} (none if null) as the whole answer; Jetty writes it without this thread waiting. */
    private static void send(Response response, Callback callback, int status, String json) {
        response.setStatus(status);
        if (json == null) {
            callback.succeeded();
            return;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)), callback);
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
        String document = request.path("tools")
                .path(0)
                .path("function")
                .path("parameters")
                .path("properties")
                .path("document")
                .path("enum")
                .path(0)
                .asText();
        if (!"tool".equals(last.path("role").asText())) {
            return completion(
                    null, toolCall("read", Json.MAPPER.createObjectNode().put("document", document)));
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
        return completion(
                null,
                toolCall(
                        "write",
                        Json.MAPPER.createObjectNode().put("document", document).put("content", content.toString())));
    }

    private static ObjectNode toolCall(String name, ObjectNode arguments) {
        ObjectNode call =
                Json.MAPPER.createObjectNode().put("id", "call_" + name).put("type", "function");
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
        if (server != null) {
            server.close();
        }
        executor.shutdownNow();
    }
}
