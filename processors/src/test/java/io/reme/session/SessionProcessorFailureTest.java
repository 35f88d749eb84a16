package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetterPayload;
import io.reme.dlq.DlqReason;
import io.reme.json.JsonSerde;
import io.reme.message.TimeBounds;
import io.reme.metrics.PipelineMetrics;
import io.reme.tokens.TokenCounter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the session processors do when something fails: Kafka's own exceptions (a fenced or migrated
 * task, a failing store) reach Streams; only a record's own faults are dead-lettered; a record over the
 * input limit is dead-lettered as a bounded excerpt before any of it is read or stored.
 */
class SessionProcessorFailureTest {
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final int LIMIT = 64 * 1024;
    private static final SessionSettings DEFAULTS = SessionSettings.defaults();
    private static final SessionSettings SETTINGS = DEFAULTS.withInput(new SessionSettings.Input(
            LIMIT,
            // Records here are timed at 1 s after the epoch; what times are accepted is not this test's concern.
            TimeBounds.NONE,
            DEFAULTS.input().dedup(),
            DEFAULTS.input().zone()));

    private final List<DlqReason> deadLetters = new ArrayList<>();
    private final PipelineMetrics metrics = new PipelineMetrics() {
        @Override
        public void deadLetter(DlqReason reason) {
            deadLetters.add(reason);
        }
    };
    private MockProcessorContext<Object, Object> context;
    /** What the next call of {@link #failingMethod} on the message or header store throws; null = nothing. */
    private RuntimeException failure;

    private String failingMethod = "put";

    @BeforeEach
    void stores() {
        context = new MockProcessorContext<>();
        context.setRecordMetadata("reme.messages", 2, 41);
        context.setCurrentSystemTimeMs(1_000L);
        add(SessionStores.HEADERS, JsonSerde.of(SessionHeader.class), true);
        add(SessionStores.MESSAGES, JsonSerde.of(StoredMessage.class), true);
        add(SessionStores.SUMMARIES, Serdes.String(), false);
        add(SessionStores.ACTIVITY, Serdes.String(), false);
        add(SessionStores.MESSAGE_IDS, Serdes.String(), false);
        add(SessionStores.DIARY_SPANS, JsonSerde.of(DiarySpan.class), false);
    }

    @Test
    void aMigratedTaskIsNotBadInput() {
        failure = new TaskMigratedException("fenced while the broker was away");
        Processor<byte[], byte[], Object, Object> processor = messageProcessor();
        TaskMigratedException thrown =
                assertThrows(TaskMigratedException.class, () -> processor.process(message("m1")));
        assertSame(failure, thrown);
        assertTrue(context.forwarded(SessionNodes.DLQ_SINK).isEmpty(), "a valid message must not be dead-lettered");
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void storeFailuresAndAFencedProducerPropagate() {
        Processor<byte[], byte[], Object, Object> processor = messageProcessor();
        failure = new ProcessorStateException("rocksdb write failed");
        assertThrows(ProcessorStateException.class, () -> processor.process(message("m1")));
        failure = new ProducerFencedException("another instance took over");
        assertThrows(ProducerFencedException.class, () -> processor.process(message("m2")));
        assertTrue(context.forwarded(SessionNodes.DLQ_SINK).isEmpty());
    }

    @Test
    void aFailureOfOurOwnOnAValidRecordIsStillDeadLettered() {
        failure = new IllegalStateException("a bug of ours");
        messageProcessor().process(message("m1"));
        List<MockProcessorContext.CapturedForward<?, ?>> dead =
                new ArrayList<>(context.forwarded(SessionNodes.DLQ_SINK));
        assertEquals(1, dead.size());
        assertEquals(
                "PROCESSING_ERROR", DeadLetterHeaders.read(dead.get(0).record().headers(), DeadLetterHeaders.REASON));
        assertEquals(List.of(DlqReason.PROCESSING_ERROR), deadLetters);
    }

    @Test
    void aResultProcessorPassesStreamsFailuresOn() {
        failingMethod = "get";
        failure = new TaskMigratedException("fenced");
        Processor<byte[], byte[], Object, Object> processor =
                ResultProcessor.supplier(SETTINGS, TOKENS, metrics).get();
        processor.init(context);
        String result = "{\"requestId\":\"r1\",\"tenant\":\"acme\",\"session\":\"s1\",\"epoch\":1,\"kind\":\"COMPACT\","
                + "\"status\":\"OK\",\"payload\":\"## Goal\\nx\"}";
        assertThrows(
                TaskMigratedException.class,
                () -> processor.process(new Record<>(bytes("acme/s1"), bytes(result), 1_000L)));
        assertTrue(context.forwarded(SessionNodes.DLQ_SINK).isEmpty());
    }

    @Test
    void aRecordOverTheLimitIsDeadLetteredAsABoundedExcerptWithSizeDigestAndOrigin() throws Exception {
        Processor<byte[], byte[], Object, Object> processor = messageProcessor();
        // Valid JSON, far over the limit: refused by size before it is parsed or stored.
        byte[] huge = envelope("big", "x".repeat(5 * LIMIT));
        failure = new IllegalStateException("nothing may be stored");
        processor.process(new Record<>(bytes("acme/s1"), huge, 1_000L));

        List<MockProcessorContext.CapturedForward<?, ?>> dead =
                new ArrayList<>(context.forwarded(SessionNodes.DLQ_SINK));
        assertEquals(1, dead.size());
        Record<?, ?> letter = dead.get(0).record();
        var headers = letter.headers();
        assertEquals("TOO_LARGE", DeadLetterHeaders.read(headers, DeadLetterHeaders.REASON));
        assertArrayEquals(Arrays.copyOf(huge, DeadLetterPayload.EXCERPT_BYTES), (byte[]) letter.value());
        assertEquals(Integer.toString(huge.length), DeadLetterHeaders.read(headers, DeadLetterHeaders.VALUE_SIZE));
        assertEquals(
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(huge)),
                DeadLetterHeaders.read(headers, DeadLetterHeaders.VALUE_SHA256));
        assertEquals("true", DeadLetterHeaders.read(headers, DeadLetterHeaders.VALUE_TRUNCATED));
        assertEquals("reme.messages", DeadLetterHeaders.read(headers, DeadLetterHeaders.TOPIC));
        assertEquals("2", DeadLetterHeaders.read(headers, DeadLetterHeaders.PARTITION));
        assertEquals("41", DeadLetterHeaders.read(headers, DeadLetterHeaders.OFFSET));
        assertArrayEquals(bytes("acme/s1"), (byte[]) letter.key());
        assertEquals(List.of(DlqReason.TOO_LARGE), deadLetters);
    }

    @Test
    void headersCountTowardsTheLimitAndLargeOnesAreNotCopied() {
        Processor<byte[], byte[], Object, Object> processor = messageProcessor();
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", new byte[2 * LIMIT]);
        processor.process(new Record<>(bytes("acme/s1"), envelope("m1", "hello"), 1_000L, headers));

        List<MockProcessorContext.CapturedForward<?, ?>> dead =
                new ArrayList<>(context.forwarded(SessionNodes.DLQ_SINK));
        assertEquals(1, dead.size());
        var letter = dead.get(0).record().headers();
        assertEquals("TOO_LARGE", DeadLetterHeaders.read(letter, DeadLetterHeaders.REASON));
        assertNull(letter.lastHeader("trace"), "a header larger than a dead letter may carry is left out");
        assertEquals("1", DeadLetterHeaders.read(letter, DeadLetterHeaders.HEADERS_DROPPED));
        assertEquals(
                "false",
                DeadLetterHeaders.read(letter, DeadLetterHeaders.VALUE_TRUNCATED),
                "the value was within the limit and is carried whole");
    }

    private Processor<byte[], byte[], Object, Object> messageProcessor() {
        Processor<byte[], byte[], Object, Object> processor =
                MessageProcessor.supplier(SETTINGS, TOKENS, metrics).get();
        processor.init(context);
        return processor;
    }

    private Record<byte[], byte[]> message(String id) {
        return new Record<>(bytes("acme/s1"), envelope(id, "hello there"), 1_000L);
    }

    private static byte[] envelope(String id, String content) {
        return bytes("{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u1\",\"id\":\"" + id
                + "\",\"role\":\"user\",\"content\":\"" + content + "\"}");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** An in-memory store under a session store's name; {@code failing} ones throw {@link #failure} when set. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <V> void add(String name, Serde<V> values, boolean failing) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
                .withLoggingDisabled()
                .build();
        store.init(context.getStateStoreContext(), store);
        if (!failing) {
            context.addStateStore(store);
            return;
        }
        KeyValueStore<String, V> proxy = (KeyValueStore<String, V>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class[] {KeyValueStore.class}, (self, method, args) -> {
                    if (failure != null && method.getName().equals(failingMethod)) {
                        throw failure;
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        context.addStateStore(proxy);
    }
}
