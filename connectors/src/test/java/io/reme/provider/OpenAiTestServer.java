package io.reme.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * A local stand-in for an OpenAI-compatible endpoint: {@code POST /v1/chat/completions} and
 * {@code POST /v1/embeddings} answered by a per-test script, every request recorded. Runs on
 * 127.0.0.1 on a free port, on Jetty's core server; each request is answered on a thread of its own,
 * so a delayed reply holds up no other. Public, like {@link CooperativeModel}, so that the embedding tests of
 * another package and the topology tests (through this module's test-jar) can use it.
 */
public final class OpenAiTestServer implements AutoCloseable {
    public static final String API_KEY = "test-key";
    public static final String MODEL = "test-model";
    public static final String CHAT_PATH = "/v1/chat/completions";
    public static final String EMBEDDINGS_PATH = "/v1/embeddings";

    /** One recorded request: its path, its Authorization header and its JSON body. */
    public record Request(String path, String authorization, JsonNode body) {
        /** The request's messages. */
        public JsonNode messages() {
            return body.path("messages");
        }

        /** The content of the first message with {@code role}, or null. */
        public String content(String role) {
            for (JsonNode message : messages()) {
                if (role.equals(message.path("role").asText())) {
                    return message.path("content").asText();
                }
            }
            return null;
        }

        public boolean hasTools() {
            return body.path("tools").isArray() && body.path("tools").size() > 0;
        }

        /** The last message of the request. */
        public JsonNode last() {
            return messages().get(messages().size() - 1);
        }
    }

    /** What the script answers: status and body, sent after {@code delay}. */
    public record Reply(int status, String body, Duration delay) {
        public Reply {
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(delay, "delay");
        }

        /** This reply, sent only after {@code wait}. */
        public Reply after(Duration wait) {
            return new Reply(status, body, wait);
        }
    }

    /** A function tool call of a scripted answer; {@code arguments} is sent as given (JSON text, or not). */
    public record ToolCall(String id, String name, String arguments) {
        public static ToolCall of(String id, String name, Object... keysAndValues) {
            ObjectNode args = Json.MAPPER.createObjectNode();
            for (int i = 0; i < keysAndValues.length; i += 2) {
                args.put((String) keysAndValues[i], (String) keysAndValues[i + 1]);
            }
            return new ToolCall(id, name, args.toString());
        }
    }

    private static final AtomicInteger COMPLETION_IDS = new AtomicInteger();

    private final Server server;
    private final ServerConnector connector;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "openai-test-server");
        thread.setDaemon(true);
        return thread;
    });
    private final CountDownLatch closing = new CountDownLatch(1);
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final Function<Request, Reply> script;

    /** A server answering each request with {@code script(body)}. */
    public static OpenAiTestServer start(Function<JsonNode, Reply> script) {
        return new OpenAiTestServer(request -> script.apply(request.body()));
    }

    /** A server whose script also sees the request's path and headers. */
    public static OpenAiTestServer startWithRequests(Function<Request, Reply> script) {
        return new OpenAiTestServer(script);
    }

    private OpenAiTestServer(Function<Request, Reply> script) {
        this.script = script;
        // Daemon threads only: a server a test forgot to close must not keep the JVM up.
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("openai-test-server-jetty");
        pool.setDaemon(true);
        server = new Server(pool, new ScheduledExecutorScheduler("openai-test-server-scheduler", true), null);
        connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(org.eclipse.jetty.server.Request request, Response response, Callback callback) {
                executor.execute(() -> answer(request, response, callback));
                return true;
            }
        });
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot start the test server: " + e.getMessage(), e);
        }
    }

    /** The API root to give the client. */
    public String baseUrl() {
        return "http://127.0.0.1:" + connector.getLocalPort() + "/v1";
    }

    /** Settings for a client of this server, with a short timeout so a hung test fails fast. */
    public OpenAiSettings settings() {
        return OpenAiSettings.of(baseUrl(), API_KEY, MODEL).withRequestTimeout(Duration.ofSeconds(10));
    }

    /** Every request so far, in arrival order. */
    public List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    private void answer(org.eclipse.jetty.server.Request exchange, Response response, Callback callback) {
        try {
            String path = exchange.getHttpURI().getPath();
            if (!path.equals(CHAT_PATH) && !path.equals(EMBEDDINGS_PATH)) {
                send(response, callback, new Reply(404, error("no route " + path), Duration.ZERO));
                return;
            }
            if (!exchange.getMethod().equals("POST")) {
                send(response, callback, new Reply(405, error("use POST"), Duration.ZERO));
                return;
            }
            byte[] body;
            try (InputStream in = Content.Source.asInputStream(exchange)) {
                body = in.readAllBytes();
            }
            Request request =
                    new Request(path, exchange.getHeaders().get(HttpHeader.AUTHORIZATION), Json.MAPPER.readTree(body));
            requests.add(request);
            Reply reply;
            try {
                reply = script.apply(request);
            } catch (RuntimeException | AssertionError e) {
                // Shows up in the client's exception message; 418 so that it is not mistaken for a scripted 5xx.
                reply = new Reply(418, error("test script failed: " + e), Duration.ZERO);
            }
            if (!reply.delay().isZero() && awaitClose(reply.delay())) {
                callback.failed(new IOException("the test server is closing"));
                return;
            }
            send(response, callback, reply);
        } catch (IOException e) {
            // The client gave up (e.g. timed out): nothing to answer to.
            callback.failed(e);
        }
    }

    private boolean awaitClose(Duration delay) {
        try {
            return closing.await(delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private static void send(Response response, Callback callback, Reply reply) {
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        response.setStatus(reply.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(bytes), callback);
    }

    @Override
    public void close() {
        if (closing.getCount() == 0) {
            return;
        }
        closing.countDown();
        try {
            server.stop();
        } catch (Exception e) {
            // Stopping a test server: nothing left to do about it.
        }
        executor.shutdownNow();
    }

    // ------------------------------------------------------------------ replies

    /** A completion whose answer is {@code content}. */
    public static Reply text(String content) {
        return new Reply(200, completion(content, List.of(), "stop"), Duration.ZERO);
    }

    /** A completion whose answer is these tool calls (and no text). */
    public static Reply toolCalls(ToolCall... calls) {
        return new Reply(200, completion(null, List.of(calls), "tool_calls"), Duration.ZERO);
    }

    /** An HTTP error in the OpenAI error shape. */
    public static Reply status(int status, String message) {
        return new Reply(status, error(message), Duration.ZERO);
    }

    /** OpenAI's refusal of a prompt longer than the model's context: 400 with code context_length_exceeded. */
    public static Reply contextLengthExceeded() {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put(
                "message",
                "This model's maximum context length is 8192 tokens. However, your messages resulted "
                        + "in 9731 tokens. Please reduce the length of the messages.");
        error.put("type", "invalid_request_error");
        error.put("param", "messages");
        error.put("code", "context_length_exceeded");
        return new Reply(400, root.toString(), Duration.ZERO);
    }

    /** A 200 whose body is cut off mid-JSON. */
    public static Reply malformed() {
        return new Reply(
                200,
                "{\"id\": \"chatcmpl-broken\", \"object\": \"chat.completion\", \"choices\": [{\"mess",
                Duration.ZERO);
    }

    /** A well-formed completion without any choice. */
    public static Reply noChoices() {
        ObjectNode root = envelope();
        root.putArray("choices");
        return new Reply(200, root.toString(), Duration.ZERO);
    }

    /**
     * The JSON of a chat completion as the API sends it.
     *
     * @param content the answer's text, or null
     * @param calls function tool calls, possibly none
     * @param finishReason e.g. {@code stop}, {@code tool_calls}, {@code length}
     */
    public static String completion(String content, List<ToolCall> calls, String finishReason) {
        ObjectNode root = envelope();
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (content == null) {
            message.putNull("content");
        } else {
            message.put("content", content);
        }
        message.putNull("refusal");
        if (!calls.isEmpty()) {
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (ToolCall call : calls) {
                ObjectNode node = toolCalls.addObject();
                node.put("id", call.id());
                node.put("type", "function");
                ObjectNode function = node.putObject("function");
                function.put("name", call.name());
                function.put("arguments", call.arguments());
            }
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        ObjectNode usage = root.putObject("usage");
        usage.put("prompt_tokens", 100);
        usage.put("completion_tokens", 20);
        usage.put("total_tokens", 120);
        return root.toString();
    }

    // ------------------------------------------------------------- embeddings

    /**
     * An embeddings answer as the API sends it: for each input text, a deterministic vector of
     * {@code dimensions} floats (the request's {@code dimensions}, else {@code defaultDimensions}) made
     * by hashing its lower-cased words into signed buckets and normalising, so that texts sharing words
     * are close. Answers only {@code encoding_format: float}: a request for base64 gets a 400.
     */
    public static Reply embeddings(JsonNode body, int defaultDimensions) {
        String format = body.path("encoding_format").asText("base64");
        if (!format.equals("float")) {
            return status(400, "this test server answers encoding_format float only, got " + format);
        }
        JsonNode input = body.path("input");
        List<String> texts = new ArrayList<>();
        if (input.isTextual()) {
            texts.add(input.asText());
        } else {
            for (JsonNode text : input) {
                texts.add(text.asText());
            }
        }
        int dimensions = body.path("dimensions").asInt(defaultDimensions);
        List<float[]> vectors = new ArrayList<>();
        for (String text : texts) {
            vectors.add(hashedVector(text, dimensions));
        }
        return new Reply(200, embeddingsBody(body.path("model").asText(MODEL), vectors, false), Duration.ZERO);
    }

    /**
     * The JSON of an embeddings answer with these vectors as floats, indexed in order (or listed in
     * reverse order when {@code reversed}, each keeping its index).
     */
    public static String embeddingsBody(String model, List<float[]> vectors, boolean reversed) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        for (int k = 0; k < vectors.size(); k++) {
            int i = reversed ? vectors.size() - 1 - k : k;
            ObjectNode item = data.addObject();
            item.put("object", "embedding");
            item.put("index", i);
            ArrayNode values = item.putArray("embedding");
            for (float value : vectors.get(i)) {
                values.add(value);
            }
        }
        root.put("model", model);
        ObjectNode usage = root.putObject("usage");
        usage.put("prompt_tokens", 8 * vectors.size());
        usage.put("total_tokens", 8 * vectors.size());
        return root.toString();
    }

    /** Feature hashing of the text's lower-cased words (letters and digits), L2-normalised. */
    public static float[] hashedVector(String text, int dimensions) {
        float[] vector = new float[dimensions];
        for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (word.isEmpty()) {
                continue;
            }
            int hash = mix(word.hashCode());
            int bucket = Math.floorMod(hash, dimensions);
            vector[bucket] += (hash & 0x4000_0000) == 0 ? 1f : -1f;
        }
        double norm = 0;
        for (float x : vector) {
            norm += x * x;
        }
        if (norm == 0) {
            vector[0] = 1f;
            return vector;
        }
        for (int i = 0; i < dimensions; i++) {
            vector[i] = (float) (vector[i] / Math.sqrt(norm));
        }
        return vector;
    }

    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85eb_ca6b;
        h ^= h >>> 13;
        h *= 0xc2b2_ae35;
        h ^= h >>> 16;
        return h;
    }

    private static ObjectNode envelope() {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-test-" + COMPLETION_IDS.incrementAndGet());
        root.put("object", "chat.completion");
        root.put("created", 1_764_338_400L);
        root.put("model", MODEL);
        return root;
    }

    private static String error(String message) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", message);
        error.put("type", "test_error");
        error.putNull("param");
        error.putNull("code");
        return root.toString();
    }
}
