package io.reme.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A tenant's view of one ReMe Streams deployment over its HTTP API (any instance: reads are forwarded to their
 * owners). Every answer is a record; every refusal a {@link RemeException} of its status. A 429 or 503 is sent again
 * after the server's {@code Retry-After} (or an exponential backoff when it names none, each wait at most {@code
 * maxWait}) until {@code maxRetries} retries are spent. Other failures are not retried: a 400 stays a 400, and a
 * transport failure ({@link UncheckedIOException}) may have reached the server or not.
 *
 * <p>Immutable and thread-safe: one client serves a whole application. Built with {@link #builder(String, String)}.
 */
public final class RemeClient {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            // The API adds fields without a new version; a client built before them reads on.
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();
    private static final int MAX_ERROR_TEXT = 500;

    private final URI baseUrl;
    private final String apiKey;
    private final Duration timeout;
    private final int maxRetries;
    private final Duration maxWait;
    private final Sleeper sleeper;
    private final Clock clock;
    private final HttpClient http;

    private RemeClient(Builder builder) {
        this.baseUrl = builder.baseUrl;
        this.apiKey = builder.apiKey;
        this.timeout = builder.timeout;
        this.maxRetries = builder.maxRetries;
        this.maxWait = builder.maxWait;
        this.sleeper = builder.sleeper;
        this.clock = builder.clock;
        this.http = HttpClient.newBuilder()
                .connectTimeout(builder.timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * A builder of a client for the API at {@code baseUrl} ({@code http://host:port}) with the tenant's key (sent as
     * {@code Authorization: Bearer}).
     */
    public static Builder builder(String baseUrl, String apiKey) {
        return new Builder(baseUrl, apiKey);
    }

    /** The API's address, without a trailing slash. */
    public URI baseUrl() {
        return baseUrl;
    }

    // ---- messages and context ----------------------------------------------------------------------------------

    /**
     * Produces messages (1 to 1000) to the pipeline, all validated before any is written. A message without an id
     * gets one from the server; give each its own id when a send may be repeated (a retry after a 503 or a transport
     * failure), and the session drops the repeat.
     */
    public IngestAnswer sendMessages(List<MessageEnvelope> messages) {
        return call("POST", "/v1/messages", List.of(), List.copyOf(messages), IngestAnswer.class);
    }

    /**
     * A session's full context: summary, the served live messages with token counts, token stats and the compaction's
     * state; with {@code wholeWindow} every live message instead of those that fit the model's input.
     *
     * @throws RemeException.NotFound {@code session_not_found}, also until the pipeline processed the session's first
     *     message
     */
    public SessionContext context(String session, boolean wholeWindow) {
        List<Map.Entry<String, String>> query = wholeWindow ? List.of(Map.entry("window", "all")) : List.of();
        return call("GET", contextPath(session), query, null, SessionContext.class);
    }

    /** A session's served context ready for a chat-completions request (the summary first, as a system message). */
    public OpenAiContext openAiContext(String session) {
        return call("GET", contextPath(session), List.of(Map.entry("format", "openai")), null, OpenAiContext.class);
    }

    /** A session's served context ready for Anthropic's messages API (the summary in {@code system}). */
    public AnthropicContext anthropicContext(String session) {
        return call(
                "GET", contextPath(session), List.of(Map.entry("format", "anthropic")), null, AnthropicContext.class);
    }

    private static String contextPath(String session) {
        return "/v1/sessions/" + Queries.segment(session) + "/context";
    }

    // ---- search and memories -----------------------------------------------------------------------------------

    /** Hybrid (BM25 and vector) search over the tenant's memories and diaries. */
    public SearchAnswer search(SearchRequest request) {
        return call("POST", "/v1/search", List.of(), request, SearchAnswer.class);
    }

    /**
     * Writes a memory (embedded by the server) and answers once searches see it, or with {@code visible == false}
     * when the index took longer than the server's visibility timeout.
     */
    public MemoryWritten createMemory(MemoryCreate memory) {
        return call("POST", "/v1/memories", List.of(), memory, MemoryWritten.class);
    }

    /** A memory, with its history. */
    public Memory getMemory(String id) {
        return call("GET", "/v1/memories/" + Queries.segment(id), List.of(), null, Memory.class);
    }

    /**
     * A new version of a memory; with {@link MemoryUpdate#ifVersion}, only if it is still at that version.
     *
     * @throws RemeException.Conflict {@code version_conflict} when it moved on
     */
    public MemoryWritten updateMemory(String id, MemoryUpdate update) {
        return call("PUT", "/v1/memories/" + Queries.segment(id), List.of(), update, MemoryWritten.class);
    }

    /** Tombstones a memory. */
    public MemoryDeleted deleteMemory(String id) {
        return call("DELETE", "/v1/memories/" + Queries.segment(id), List.of(), null, MemoryDeleted.class);
    }

    /** One page of memories; {@code cursor} is the previous page's {@code nextCursor}, null for the first. */
    public MemoryPage listMemories(MemoryFilter filter, String cursor) {
        List<Map.Entry<String, String>> query = new ArrayList<>(filter.query());
        Queries.put(query, "cursor", cursor);
        return call("GET", "/v1/memories", query, null, MemoryPage.class);
    }

    /**
     * Every memory the filter admits, page after page: each page is asked for when the stream reaches it, so a
     * stream cut short (e.g. by {@code limit}) asks for no more.
     */
    public Stream<Memory> memories(MemoryFilter filter) {
        return pages(cursor -> listMemories(filter, cursor), MemoryPage::memories, MemoryPage::nextCursor);
    }

    // ---- sessions, diaries, erasure ----------------------------------------------------------------------------

    /** One page of the tenant's sessions, newest activity first. */
    public SessionPage listSessions(SessionFilter filter, String cursor) {
        List<Map.Entry<String, String>> query = new ArrayList<>(filter.query());
        Queries.put(query, "cursor", cursor);
        return call("GET", "/v1/sessions", query, null, SessionPage.class);
    }

    /** Every session the filter admits, page after page, each page asked for when the stream reaches it. */
    public Stream<SessionEntry> sessions(SessionFilter filter) {
        return pages(cursor -> listSessions(filter, cursor), SessionPage::sessions, SessionPage::nextCursor);
    }

    /** A user's diary of one conversation date ({@code YYYY-MM-DD}), or {@code MEMORY} for their MEMORY.md. */
    public DiaryDocument diary(String user, String document) {
        return call(
                "GET",
                "/v1/diary/" + Queries.segment(user) + "/" + Queries.segment(document),
                List.of(),
                null,
                DiaryDocument.class);
    }

    /**
     * Forgets a user of the tenant everywhere the live system serves from: memories, sessions, diaries, tool outputs,
     * files. {@link ErasureStatus#complete()} says whether every part is done yet; {@link #userErasure} follows it.
     */
    public ErasureStatus eraseUser(String user) {
        return call("DELETE", "/v1/users/" + Queries.segment(user), List.of(), null, ErasureStatus.class);
    }

    /** How the latest erasure of a user went. */
    public ErasureStatus userErasure(String user) {
        return call("GET", "/v1/users/" + Queries.segment(user) + "/erasure", List.of(), null, ErasureStatus.class);
    }

    /**
     * Forgets the whole tenant; {@code confirm} must be the tenant's own name.
     *
     * @throws RemeException.BadRequest {@code confirmation_required} when it is not
     */
    public ErasureStatus eraseTenant(String confirm) {
        return call("DELETE", "/v1/tenant", List.of(), Map.of("confirm", confirm), ErasureStatus.class);
    }

    /** How the latest erasure of the tenant went. */
    public ErasureStatus tenantErasure() {
        return call("GET", "/v1/tenant/erasure", List.of(), null, ErasureStatus.class);
    }

    // ---- the wire ----------------------------------------------------------------------------------------------

    private <T> T call(String method, String path, List<Map.Entry<String, String>> query, Object body, Class<T> type) {
        JsonNode answer = exchange(method, path + Queries.encode(query), body);
        try {
            return MAPPER.treeToValue(answer, type);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(
                    "the answer of " + method + " " + path + " is not a " + type.getSimpleName(), e);
        }
    }

    private JsonNode exchange(String method, String pathAndQuery, Object body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery))
                .timeout(timeout)
                .header("Authorization", "Bearer " + apiKey)
                .header("Accept", "application/json");
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(json(body)));
        }
        HttpRequest built = request.build();
        for (int attempt = 0; ; attempt++) {
            HttpResponse<byte[]> answer = send(built);
            int status = answer.statusCode();
            if (status >= 200 && status < 300) {
                return read(answer.body());
            }
            RemeException error = error(
                    status,
                    answer.body(),
                    answer.headers().firstValue("Retry-After").orElse(null));
            if ((status != 429 && status != 503) || attempt >= maxRetries) {
                throw error;
            }
            pause(error.retryAfter().orElse(backoff(attempt)));
        }
    }

    private HttpResponse<byte[]> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    request.method() + " " + request.uri().getPath() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("interrupted waiting for " + request.uri()));
        }
    }

    private void pause(Duration wait) {
        Duration bounded = wait.compareTo(maxWait) > 0 ? maxWait : wait;
        try {
            sleeper.sleep(bounded);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("interrupted waiting to retry"));
        }
    }

    /** 1 s, 2 s, 4 s, ...: for a 429 or 503 that names no wait. */
    private static Duration backoff(int attempt) {
        return Duration.ofSeconds(1L << Math.min(attempt, 20));
    }

    private RemeException error(int status, byte[] body, String retryAfter) {
        String code = "http_" + status;
        String text = new String(body, StandardCharsets.UTF_8);
        String detail = text.length() > MAX_ERROR_TEXT ? text.substring(0, MAX_ERROR_TEXT) : text;
        try {
            JsonNode error = MAPPER.readTree(body).path("error");
            code = error.path("code").asText(code);
            detail = error.path("message").asText(detail);
        } catch (IOException e) {
            // Not the API's error body (a proxy's page, say): the status and the text are all there is.
        }
        return RemeException.of(status, code, detail, retryAfter(retryAfter));
    }

    /** {@code Retry-After} as seconds or as an HTTP date; null when absent or unreadable. */
    Duration retryAfter(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        try {
            double seconds = Double.parseDouble(header.trim());
            return seconds < 0 ? Duration.ZERO : Duration.ofMillis((long) (seconds * 1000));
        } catch (NumberFormatException e) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration wait = Duration.between(clock.instant(), at.toInstant());
                return wait.isNegative() ? Duration.ZERO : wait;
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
    }

    private static byte[] json(Object body) {
        try {
            return MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the request body cannot be written as JSON", e);
        }
    }

    private static JsonNode read(byte[] body) {
        if (body.length == 0) {
            return MAPPER.createObjectNode();
        }
        try {
            return MAPPER.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException("the server's answer is not JSON", e);
        }
    }

    /** The JSON mapper the client reads and writes records with (java.time as ISO-8601 text). */
    static ObjectMapper mapper() {
        return MAPPER;
    }

    private static <P, T> Stream<T> pages(
            Function<String, P> fetch, Function<P, List<T>> items, Function<P, String> nextCursor) {
        Iterator<T> iterator = new Iterator<>() {
            private Iterator<T> page = null;
            private String cursor = null;
            private boolean last = false;

            @Override
            public boolean hasNext() {
                while (page == null || !page.hasNext()) {
                    if (last) {
                        return false;
                    }
                    P answer = fetch.apply(cursor);
                    page = items.apply(answer).iterator();
                    cursor = nextCursor.apply(answer);
                    last = cursor == null || cursor.isEmpty();
                }
                return true;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.next();
            }
        };
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    /** How the client waits between tries: the thread's sleep, or a test's recorder. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /** The client's settings; {@link #build()} checks them. */
    public static final class Builder {
        private final URI baseUrl;
        private final String apiKey;
        private Duration timeout = Duration.ofSeconds(30);
        private int maxRetries = 5;
        private Duration maxWait = Duration.ofSeconds(30);
        private Sleeper sleeper = duration -> Thread.sleep(duration);
        private Clock clock = Clock.systemUTC();

        private Builder(String baseUrl, String apiKey) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
                throw new IllegalArgumentException(
                        "baseUrl must start with http:// or https://, got '" + baseUrl + "'");
            }
            this.baseUrl = URI.create(baseUrl.replaceAll("/+$", ""));
            if (apiKey == null || apiKey.isBlank()) {
                throw new IllegalArgumentException("apiKey is required: the tenant's key");
            }
            this.apiKey = apiKey;
        }

        /** How long one request may take, and connecting to the server (default 30 s). */
        public Builder timeout(Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + value);
            }
            this.timeout = value;
            return this;
        }

        /** How often a 429 or 503 is sent again (default 5; 0: never). */
        public Builder maxRetries(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("maxRetries must be 0 or more, got " + value);
            }
            this.maxRetries = value;
            return this;
        }

        /** The longest wait between two tries, whatever {@code Retry-After} says (default 30 s). */
        public Builder maxWait(Duration value) {
            if (value.isNegative()) {
                throw new IllegalArgumentException("maxWait must not be negative, got " + value);
            }
            this.maxWait = value;
            return this;
        }

        /** How the client waits between tries (default: {@link Thread#sleep(Duration)}). */
        public Builder sleeper(Sleeper value) {
            this.sleeper = Objects.requireNonNull(value, "sleeper");
            return this;
        }

        /** The clock an HTTP-date {@code Retry-After} is measured against (default: the system's, UTC). */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        public RemeClient build() {
            return new RemeClient(this);
        }
    }
}
