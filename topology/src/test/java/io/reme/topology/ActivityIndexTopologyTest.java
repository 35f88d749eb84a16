package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.streams.state.KeyValueStore;
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
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private int sent;

    @BeforeEach
    void start() {
        driver = SessionDriver.of(
                SessionSettings.defaults(), SessionDriver.TOKENS, DriverProperties.of("activity", stateDir), T0);
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
        KeyValueStore<String, String> activity = driver.store(SessionStores.ACTIVITY);
        activity.put(padded(T0.minus(Duration.ofHours(2)).plusMillis(17)) + "/acme/s1", "");
        activity.put("x" + padded(T0.minus(Duration.ofDays(100)).plusMillis(17)) + "/acme/s1", "");

        driver.advanceWallClockTime(Duration.ofMinutes(1));

        SessionHeader header = header();
        assertNotNull(header, "the active session was expired by a stale entry");
        assertEquals(2, header.liveCount());
        assertEquals(0, driver.requests().getQueueSize(), "a diary request went out for an active session");
        assertEquals(List.of(padded(T0) + "/acme/s1"), activityKeys());
    }

    @Test
    void aQuietSessionStillGoesIdleAndExpires() {
        send("m1");
        driver.advanceWallClockTime(Duration.ofMinutes(31));
        assertEquals(List.of("x" + padded(T0) + "/acme/s1"), activityKeys());
        assertEquals(
                List.of(List.of(LlmKind.DIARY, LlmKind.EXTRACT)),
                driver.requests().readValuesToList().stream()
                        .map(LlmRequest::kinds)
                        .toList(),
                "one record asking for the diary and the extraction");

        driver.advanceWallClockTime(Duration.ofDays(31));
        assertNull(header());
        assertEquals(List.of(), activityKeys());
    }

    private void send(String id) {
        Instant time = T0.plusSeconds(sent++);
        driver.send(SessionDriver.message("acme", "s1", id, "user", "message " + id, time), time);
    }

    private SessionHeader header() {
        return driver.header("acme", "s1");
    }

    private List<String> activityKeys() {
        return driver.<String>entries(SessionStores.ACTIVITY).stream()
                .map(entry -> entry.key)
                .toList();
    }

    private static String padded(Instant time) {
        return String.format(Locale.ROOT, "%019d", time.toEpochMilli());
    }
}
