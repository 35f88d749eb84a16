package io.reme.topology;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.context.ContextPolicy;
import io.reme.diary.DiaryDocument;
import io.reme.json.Json;
import io.reme.json.JsonSerde;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.RequestSecret;
import io.reme.llm.ResultSignature;
import io.reme.session.ArchivedMessage;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.tokens.TokenCounter;
import io.reme.toolresult.TruncationLimits;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * A {@link TopologyTestDriver} over the topology as production builds it, with the topics the topology
 * tests pipe to and read from (each created on first use, with the serdes the producers and readers use)
 * and the message envelope the API writes. It holds no test's state: a test keeps its own clock, ids and
 * expectations.
 */
final class SessionDriver implements AutoCloseable {
    static final Topics TOPICS = Topics.withDefaultPrefix();
    /** The token counter the topology tests count with: o200k_base, an image 1,000 tokens. */
    static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    /**
     * The small window most topology tests fill in a few turns: threshold = floor(1000 x 1.0 x 0.95) = 950 tokens,
     * keep 200.
     */
    static final ContextPolicy SMALL_WINDOW = new ContextPolicy(1000, 1.0, 200, 0);

    private final TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> messages;
    private TestInputTopic<byte[], byte[]> results;
    private TestInputTopic<byte[], byte[]> diaryEdits;
    private TestInputTopic<String, byte[]> tenants;
    private TestOutputTopic<String, LlmRequest> requests;
    private TestOutputTopic<String, ArchivedMessage> dialog;
    private TestOutputTopic<String, String> toolResults;
    private TestOutputTopic<String, DiaryDocument> diary;
    private TestOutputTopic<byte[], byte[]> dlq;
    private final RequestSecret secret;

    /**
     * Drives {@code topology} with {@code properties}, results signed with {@code secret} as the workers sign
     * them, its wall clock (the processors' clock) starting at
     * {@code start}, or at the machine's clock when {@code start} is null.
     */
    SessionDriver(Topology topology, Properties properties, Instant start, RequestSecret secret) {
        this.secret = secret;
        driver = start == null
                ? new TopologyTestDriver(topology, properties)
                : new TopologyTestDriver(topology, properties, start);
    }

    /**
     * Sessions under {@code policy}, tool outputs cut to 20,000 bytes and to 2,000 once old, a failed COMPACT
     * request asked again after 30 seconds and a pending one given up after 10 minutes; a request secret of their
     * own.
     */
    static SessionSettings settings(ContextPolicy policy) {
        return SessionSettings.defaults()
                .withDefaultPolicy(policy)
                .withTruncation(new TruncationLimits(20_000, 2_000))
                .withTiming(Duration.ofSeconds(30), Duration.ofMinutes(10));
    }

    /** {@code RemeTopology.build(TOPICS, settings, tokens)} with {@code properties}, as above. */
    static SessionDriver of(SessionSettings settings, TokenCounter tokens, Properties properties, Instant start) {
        return new SessionDriver(
                RemeTopology.build(TOPICS, settings, tokens), properties, start, settings.requestSecret());
    }

    // ---- the message envelope ----

    /**
     * A message envelope as the API writes it, from user {@code u1}, without content or time: the caller
     * adds what its test is about.
     */
    static ObjectNode envelope(String tenant, String session, String id, String role) {
        return Json.MAPPER
                .createObjectNode()
                .put("tenant", tenant)
                .put("session", session)
                .put("user", "u1")
                .put("id", id)
                .put("role", role);
    }

    /** A text message from user {@code u1}, dated {@code time} in the envelope. */
    static ObjectNode message(String tenant, String session, String id, String role, String content, Instant time) {
        return envelope(tenant, session, id, role).put("content", content).put("time", time.toString());
    }

    /** Adds one call of the function {@code name} to an assistant's envelope. */
    static ObjectNode withToolCall(ObjectNode envelope, String callId, String name, String arguments) {
        envelope.putArray("tool_calls")
                .addObject()
                .put("id", callId)
                .put("type", "function")
                .putObject("function")
                .put("name", name)
                .put("arguments", arguments);
        return envelope;
    }

    /** Makes a tool's envelope the result of call {@code callId} of the function {@code name}. */
    static ObjectNode withToolResult(ObjectNode envelope, String callId, String name, String output) {
        return envelope.put("tool_call_id", callId).put("name", name).put("content", output);
    }

    /** {@code n} copies of " word": about one token each. */
    static String repeatedWord(int n) {
        return " word".repeat(n);
    }

    /** {@code n} words " word0" to " word9" over and over. */
    static String words(int n) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            text.append(" word").append(i % 10);
        }
        return text.toString();
    }

    /** A summary that passes validation, its goal given. */
    static String summary(String goal) {
        return "## Goal\n" + goal + "\n## Constraints & Preferences\n(none)\n## Progress\n### Done\n- [x] work\n"
                + "### In Progress\n(none)\n### Blocked\n(none)\n## Key Decisions\n(none)\n## Next Steps\n1. more\n"
                + "## Critical Context\n(none)\n";
    }

    // ---- piping in ----

    /**
     * Pipes {@code envelope} to the messages topic, keyed {@code tenant/session} from the envelope as the
     * API keys it, with the record timestamp {@code time}; returns the value's bytes as sent.
     */
    byte[] send(ObjectNode envelope, Instant time) {
        String key =
                envelope.get("tenant").asText() + "/" + envelope.get("session").asText();
        byte[] value = envelope.toString().getBytes(StandardCharsets.UTF_8);
        messages().pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value, time));
        return value;
    }

    /** As {@link #send(ObjectNode, Instant)}, the record carrying {@code headers}. */
    byte[] send(ObjectNode envelope, Instant time, Headers headers) {
        String key =
                envelope.get("tenant").asText() + "/" + envelope.get("session").asText();
        byte[] value = envelope.toString().getBytes(StandardCharsets.UTF_8);
        messages().pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value, headers, time));
        return value;
    }

    /** Pipes {@code value} to the messages topic as it is, under {@code key} (null: no key). */
    void sendRaw(String key, String value, Instant time) {
        messages()
                .pipeInput(new TestRecord<>(
                        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                        value.getBytes(StandardCharsets.UTF_8),
                        time));
    }

    /** Pipes a worker's result to the LLM results topic, keyed by its session and signed as a worker does. */
    void sendResult(LlmResult result, Instant time) {
        sendResult(result, time, secret);
    }

    /** As {@link #sendResult(LlmResult, Instant)}, signed with {@code signer} (null: not signed at all). */
    void sendResult(LlmResult result, Instant time, RequestSecret signer) {
        byte[] key = (result.tenant() + "/" + result.session()).getBytes(StandardCharsets.UTF_8);
        byte[] value = Json.bytes(result);
        RecordHeaders headers = new RecordHeaders();
        if (signer != null) {
            headers.add(ResultSignature.header(signer, key, value));
        }
        results().pipeInput(new TestRecord<>(key, value, headers, time));
    }

    // ---- reading state and output ----

    /** The session's header as the session processor last wrote it, null if there is none. */
    SessionHeader header(String tenant, String session) {
        KeyValueStore<String, SessionHeader> store = driver.getKeyValueStore(SessionStores.HEADERS);
        return store.get(tenant + "/" + session);
    }

    /** The key-value store {@code name}. */
    <K, V> KeyValueStore<K, V> store(String name) {
        return driver.getKeyValueStore(name);
    }

    /** Every entry of the store {@code name}, in the order the store iterates. */
    <V> List<KeyValue<String, V>> entries(String name) {
        KeyValueStore<String, V> store = driver.getKeyValueStore(name);
        List<KeyValue<String, V>> out = new ArrayList<>();
        try (KeyValueIterator<String, V> it = store.all()) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** The entries of the store {@code name} whose key starts with {@code prefix}, in the store's order. */
    <V> List<KeyValue<String, V>> entries(String name, String prefix) {
        KeyValueStore<String, V> store = driver.getKeyValueStore(name);
        List<KeyValue<String, V>> out = new ArrayList<>();
        try (KeyValueIterator<String, V> it = store.prefixScan(prefix, new StringSerializer())) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /**
     * The requests emitted since the last read as a worker takes them: a record asking for several kinds
     * (a DIARY request's EXTRACT twin) is one request per kind, in the record's order.
     */
    List<LlmRequest> asked() {
        return requests().readValuesToList().stream()
                .flatMap(r -> r.kinds().stream().map(r::withKind))
                .toList();
    }

    /** The requests of {@code kind} emitted since the last read; the others read with them are dropped. */
    List<LlmRequest> requestsOf(LlmKind kind) {
        return asked().stream().filter(r -> r.kind() == kind).toList();
    }

    void advanceWallClockTime(Duration advance) {
        driver.advanceWallClockTime(advance);
    }

    /** The driver itself, for what this class does not cover. */
    TopologyTestDriver driver() {
        return driver;
    }

    // ---- the topics ----

    TestInputTopic<byte[], byte[]> messages() {
        if (messages == null) {
            messages = driver.createInputTopic(TOPICS.messages(), new ByteArraySerializer(), new ByteArraySerializer());
        }
        return messages;
    }

    TestInputTopic<byte[], byte[]> results() {
        if (results == null) {
            results =
                    driver.createInputTopic(TOPICS.llmResults(), new ByteArraySerializer(), new ByteArraySerializer());
        }
        return results;
    }

    TestInputTopic<byte[], byte[]> diaryEdits() {
        if (diaryEdits == null) {
            diaryEdits =
                    driver.createInputTopic(TOPICS.diaryEdits(), new ByteArraySerializer(), new ByteArraySerializer());
        }
        return diaryEdits;
    }

    TestInputTopic<String, byte[]> tenants() {
        if (tenants == null) {
            tenants = driver.createInputTopic(TOPICS.tenants(), new StringSerializer(), new ByteArraySerializer());
        }
        return tenants;
    }

    TestOutputTopic<String, LlmRequest> requests() {
        if (requests == null) {
            requests = driver.createOutputTopic(
                    TOPICS.llmRequests(),
                    new StringDeserializer(),
                    JsonSerde.of(LlmRequest.class).deserializer());
        }
        return requests;
    }

    TestOutputTopic<String, ArchivedMessage> dialog() {
        if (dialog == null) {
            dialog = driver.createOutputTopic(
                    TOPICS.dialog(),
                    new StringDeserializer(),
                    JsonSerde.of(ArchivedMessage.class).deserializer());
        }
        return dialog;
    }

    TestOutputTopic<String, String> toolResults() {
        if (toolResults == null) {
            toolResults =
                    driver.createOutputTopic(TOPICS.toolResults(), new StringDeserializer(), new StringDeserializer());
        }
        return toolResults;
    }

    TestOutputTopic<String, DiaryDocument> diary() {
        if (diary == null) {
            diary = driver.createOutputTopic(
                    TOPICS.diary(),
                    new StringDeserializer(),
                    JsonSerde.of(DiaryDocument.class).deserializer());
        }
        return diary;
    }

    TestOutputTopic<byte[], byte[]> dlq() {
        if (dlq == null) {
            dlq = driver.createOutputTopic(TOPICS.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
        return dlq;
    }

    @Override
    public void close() {
        driver.close();
    }
}
