package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.session.SessionSettings;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant's stored policy sets its sessions' window, idle period and retention; another tenant on
 * the same instance keeps the instance's settings (a 131072-token window, 30 minutes, 30 days).
 */
class TenantSessionPolicyTopologyTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    /** threshold = floor(1000 x 1.0 x 0.95) = 950 tokens, keep 200. */
    private static final TenantPolicy SMALL_WINDOW = TenantPolicy.NONE.withContext(1000, 1.0, 200);

    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private int sent;

    @BeforeEach
    void start() {
        driver = SessionDriver.of(
                SessionSettings.defaults(),
                SessionDriver.TOKENS,
                DriverProperties.of("tenant-session-policy", stateDir),
                T0);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private void policy(String tenant, TenantPolicy policy) {
        driver.tenants()
                .pipeInput(
                        TenantEntries.tenantKey(tenant),
                        TenantEntries.bytes(new TenantRecord(tenant, TenantStatus.ENABLED, T0, policy)));
    }

    private void send(String tenant, String session, String role, String content) {
        Instant time = T0.plusSeconds(sent);
        driver.send(SessionDriver.message(tenant, session, "m" + sent++, role, content, time), time);
    }

    /** Three turns of ~400 tokens each: over 950 tokens, far under the instance's threshold. */
    private void talk(String tenant, String session) {
        for (int turn = 0; turn < 3; turn++) {
            send(tenant, session, "user", "question " + turn + " word".repeat(200));
            send(tenant, session, "assistant", "answer " + turn + " word".repeat(200));
        }
    }

    private List<String> compacted() {
        return driver.requestsOf(LlmKind.COMPACT).stream()
                .map(r -> r.dialog().tenant() + "/" + r.dialog().session())
                .toList();
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
        LlmRequest request = driver.requests().readValuesToList().stream()
                .filter(r -> r.kind() == LlmKind.COMPACT)
                .findFirst()
                .orElseThrow();
        assertEquals(
                375, request.compaction().summaryBudget(), "the summary budget follows the window: (950 - 200) / 2");
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
        assertEquals(6, driver.header("small", "s1").liveCount());
    }

    @Test
    void idlePeriodAndRetentionFollowEachTenantsPolicy() {
        policy("brief", TenantPolicy.NONE.withPeriods(Duration.ofMinutes(5), Duration.ofHours(1)));
        send("brief", "s1", "user", "short question");
        send("other", "s1", "user", "short question");
        driver.advanceWallClockTime(Duration.ofMinutes(6));
        List<LlmRequest> idle = driver.requests().readValuesToList();
        assertEquals(
                List.of("brief/s1"),
                idle.stream()
                        .filter(r -> r.kind() == LlmKind.DIARY)
                        .map(r -> r.dialog().tenant() + "/" + r.dialog().session())
                        .toList(),
                "only the tenant with a 5-minute idle period is idle after 6 minutes");
        driver.advanceWallClockTime(Duration.ofMinutes(25));
        assertEquals(
                List.of("other/s1"),
                driver.requests().readValuesToList().stream()
                        .filter(r -> r.kind() == LlmKind.DIARY)
                        .map(r -> r.dialog().tenant() + "/" + r.dialog().session())
                        .toList(),
                "the instance's 30 minutes for the other");
        driver.advanceWallClockTime(Duration.ofMinutes(30));
        assertNull(driver.header("brief", "s1"), "expired after its tenant's hour");
        assertNotNull(driver.header("other", "s1"), "kept for the instance's 30 days");
        assertTrue(driver.requests().isEmpty());
    }
}
