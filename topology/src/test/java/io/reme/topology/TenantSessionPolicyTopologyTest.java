package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.json.Json;
import io.reme.json.JsonSerde;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant's stored policy sets its sessions' window, idle period and retention; another tenant on
 * the same instance keeps the instance's settings (a 131072-token window, 30 minutes, 30 days).
 */
class TenantSessionPolicyTopologyTest {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    /** threshold = floor(1000 x 1.0 x 0.95) = 950 tokens, keep 200. */
    private static final TenantPolicy SMALL_WINDOW = TenantPolicy.NONE.withContext(1000, 1.0, 200);

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, byte[]> tenants;
    private TestInputTopic<byte[], byte[]> messages;
    private TestOutputTopic<String, LlmRequest> requests;
    private int sent;

    @BeforeEach
    void start() {
        driver = new TopologyTestDriver(
                RemeTopology.build(TOPICS, SessionSettings.defaults(), TOKENS),
                DriverProperties.of("tenant-session-policy", stateDir),
                T0);
        tenants = driver.createInputTopic(TOPICS.tenants(), new StringSerializer(), new ByteArraySerializer());
        messages = driver.createInputTopic(TOPICS.messages(), new ByteArraySerializer(), new ByteArraySerializer());
        requests = driver.createOutputTopic(
                TOPICS.llmRequests(),
                new StringDeserializer(),
                JsonSerde.of(LlmRequest.class).deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private void policy(String tenant, TenantPolicy policy) {
        tenants.pipeInput(
                TenantEntries.tenantKey(tenant),
                TenantEntries.bytes(new TenantRecord(tenant, TenantStatus.ENABLED, T0, policy)));
    }

    private void send(String tenant, String session, String role, String content) {
        Instant time = T0.plusSeconds(sent);
        String value = Json.MAPPER
                .createObjectNode()
                .put("tenant", tenant)
                .put("session", session)
                .put("user", "u1")
                .put("id", "m" + sent++)
                .put("role", role)
                .put("content", content)
                .put("time", time.toString())
                .toString();
        messages.pipeInput(new TestRecord<>(
                (tenant + "/" + session).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8),
                time));
    }

    /** Three turns of ~400 tokens each: over 950 tokens, far under the instance's threshold. */
    private void talk(String tenant, String session) {
        for (int turn = 0; turn < 3; turn++) {
            send(tenant, session, "user", "question " + turn + " word".repeat(200));
            send(tenant, session, "assistant", "answer " + turn + " word".repeat(200));
        }
    }

    private List<String> compacted() {
        return requests.readValuesToList().stream()
                .filter(r -> r.kind() == LlmKind.COMPACT)
                .map(r -> r.tenant() + "/" + r.session())
                .toList();
    }

    private SessionHeader header(String tenant, String session) {
        KeyValueStore<String, SessionHeader> store = driver.getKeyValueStore(SessionStores.HEADERS);
        return store.get(tenant + "/" + session);
    }

    @Test
    void onlyTheSessionsOfTheTenantWithASmallWindowCompact() {
        policy("small", SMALL_WINDOW);
        policy("big", new TenantPolicy(5.0, null, null));
        talk("small", "s1");
        talk("big", "s1");
        talk("other", "s1");
        assertEquals(List.of("small/s1"), compacted());
        talk("small", "s2");
        LlmRequest request = requests.readValuesToList().stream()
                .filter(r -> r.kind() == LlmKind.COMPACT)
                .findFirst()
                .orElseThrow();
        assertEquals(375, request.summaryBudget(), "the summary budget follows the window: (950 - 200) / 2");
    }

    @Test
    void aChangedPolicyHoldsWithinASecondOfTheProcessorsClock() {
        policy("small", SMALL_WINDOW);
        talk("small", "s1");
        assertEquals(List.of("small/s1"), compacted());
        policy("small", TenantPolicy.NONE);
        driver.advanceWallClockTime(Duration.ofSeconds(2));
        talk("small", "s2");
        assertEquals(List.of(), compacted(), "back on the instance's window");
    }

    @Test
    void aPolicyThatDoesNotFitThisInstanceIsIgnoredNotFatal() {
        // A reserve over the instance's threshold (87162): no window holds it, so the instance's applies.
        policy("small", TenantPolicy.NONE.withContext(null, null, 90_000));
        talk("small", "s1");
        assertEquals(List.of(), compacted());
        assertEquals(6, header("small", "s1").liveCount());
    }

    @Test
    void idlePeriodAndRetentionFollowEachTenantsPolicy() {
        policy("brief", TenantPolicy.NONE.withPeriods(Duration.ofMinutes(5), Duration.ofHours(1)));
        send("brief", "s1", "user", "short question");
        send("other", "s1", "user", "short question");
        driver.advanceWallClockTime(Duration.ofMinutes(6));
        List<LlmRequest> idle = requests.readValuesToList();
        assertEquals(
                List.of("brief/s1"),
                idle.stream()
                        .filter(r -> r.kind() == LlmKind.DIARY)
                        .map(r -> r.tenant() + "/" + r.session())
                        .toList(),
                "only the tenant with a 5-minute idle period is idle after 6 minutes");
        driver.advanceWallClockTime(Duration.ofMinutes(25));
        assertEquals(
                List.of("other/s1"),
                requests.readValuesToList().stream()
                        .filter(r -> r.kind() == LlmKind.DIARY)
                        .map(r -> r.tenant() + "/" + r.session())
                        .toList(),
                "the instance's 30 minutes for the other");
        driver.advanceWallClockTime(Duration.ofMinutes(30));
        assertNull(header("brief", "s1"), "expired after its tenant's hour");
        assertNotNull(header("other", "s1"), "kept for the instance's 30 days");
        assertTrue(requests.isEmpty());
    }
}
