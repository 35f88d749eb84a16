package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.reme.json.Json;
import io.reme.json.JsonSerde;
import io.reme.llm.LlmRequest;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The activity index (idle and expiry) keeps whole seconds, so a session's messages within a second
 * leave its entry alone; an entry older than the session's last activity is dropped by the sweep,
 * never acted on.
 */
class ActivityIndexTopologyTest {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> messages;
    private TestOutputTopic<String, LlmRequest> requests;
    private int sent;

    @BeforeEach
    void start() {
        driver = new TopologyTestDriver(
                RemeTopology.build(TOPICS, SessionSettings.defaults(), TOKENS),
                DriverProperties.of("activity", stateDir),
                T0);
        ByteArraySerializer bytes = new ByteArraySerializer();
        messages = driver.createInputTopic(TOPICS.messages(), bytes, bytes);
        requests = driver.createOutputTopic(
                TOPICS.llmRequests(),
                new StringDeserializer(),
                JsonSerde.of(LlmRequest.class).deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void messagesWithinASecondKeepOneEntryAtTheSecondAfter() {
        driver.advanceWallClockTime(Duration.ofMillis(300));
        send("m1");
        driver.advanceWallClockTime(Duration.ofMillis(400));
        send("m2");
        assertEquals(List.of(padded(T0.plusSeconds(1)) + "/acme/s1"), activityKeys());

        driver.advanceWallClockTime(Duration.ofMillis(500));
        send("m3");
        assertEquals(List.of(padded(T0.plusSeconds(2)) + "/acme/s1"), activityKeys());
        assertEquals(T0.plusMillis(1200).toEpochMilli(), header().lastActiveMs());
    }

    @Test
    void anEntryOlderThanTheSessionsActivityIsDroppedNotActedOn() {
        send("m1");
        send("m2");
        // Left behind by an earlier version (milliseconds) or a lost delete: one says the session went
        // quiet two hours ago, the other that it expired 100 days ago. It is active now.
        KeyValueStore<String, String> activity = driver.getKeyValueStore(SessionStores.ACTIVITY);
        activity.put(padded(T0.minus(Duration.ofHours(2)).plusMillis(17)) + "/acme/s1", "");
        activity.put("x" + padded(T0.minus(Duration.ofDays(100)).plusMillis(17)) + "/acme/s1", "");

        driver.advanceWallClockTime(Duration.ofMinutes(1));

        SessionHeader header = header();
        assertNotNull(header, "the active session was expired by a stale entry");
        assertEquals(2, header.liveCount());
        assertEquals(0, requests.getQueueSize(), "a diary request went out for an active session");
        assertEquals(List.of(padded(T0) + "/acme/s1"), activityKeys());
    }

    @Test
    void aQuietSessionStillGoesIdleAndExpires() {
        send("m1");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        assertEquals(List.of("x" + padded(T0) + "/acme/s1"), activityKeys());
        assertEquals(1, requests.getQueueSize() / 2, "one DIARY and one EXTRACT request");

        driver.advanceWallClockTime(Duration.ofDays(31));
        assertNull(header());
        assertEquals(List.of(), activityKeys());
    }

    private void send(String id) {
        Instant time = T0.plusSeconds(sent++);
        String value = Json.MAPPER
                .createObjectNode()
                .put("tenant", "acme")
                .put("session", "s1")
                .put("user", "u1")
                .put("id", id)
                .put("role", "user")
                .put("content", "message " + id)
                .put("time", time.toString())
                .toString();
        messages.pipeInput(new TestRecord<>(
                "acme/s1".getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), time));
    }

    private SessionHeader header() {
        KeyValueStore<String, SessionHeader> store = driver.getKeyValueStore(SessionStores.HEADERS);
        return store.get("acme/s1");
    }

    private List<String> activityKeys() {
        KeyValueStore<String, String> store = driver.getKeyValueStore(SessionStores.ACTIVITY);
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, String> it = store.all()) {
            it.forEachRemaining((KeyValue<String, String> entry) -> keys.add(entry.key));
        }
        return keys;
    }

    private static String padded(Instant time) {
        return String.format(Locale.ROOT, "%019d", time.toEpochMilli());
    }
}
