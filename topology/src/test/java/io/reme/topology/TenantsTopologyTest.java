package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.reme.session.SessionSettings;
import io.reme.tenant.ApiKeyRecord;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import io.reme.tokens.TokenCounter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tenants topic as every instance's global store: records kept as written, bad ones skipped, tombstones delete. */
class TenantsTopologyTest {
    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private TestInputTopic<String, byte[]> tenants;
    private KeyValueStore<String, byte[]> store;

    @BeforeEach
    void start() {
        driver = SessionDriver.of(
                SessionSettings.defaults(),
                TokenCounter.forEncoding("o200k_base", 85),
                DriverProperties.of("tenants-topology-test", stateDir),
                null);
        tenants = driver.tenants();
        store = driver.store(TenantEntries.STORE);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void recordsAreKeptAsWrittenAndTombstonesDelete() {
        byte[] tenant = TenantEntries.bytes(
                new TenantRecord("acme", TenantStatus.ENABLED, Instant.EPOCH, new TenantPolicy(5.0, null, 2)));
        byte[] key = TenantEntries.bytes(
                new ApiKeyRecord("0123456789abcdef", "acme", "ab".repeat(32), Instant.EPOCH, null, null));
        tenants.pipeInput("tenant/acme", tenant);
        tenants.pipeInput("key/0123456789abcdef", key);
        assertArrayEquals(tenant, store.get("tenant/acme"));
        assertArrayEquals(key, store.get("key/0123456789abcdef"));
        assertEquals(
                Integer.valueOf(2),
                TenantEntries.tenant(store.get("tenant/acme")).policy().llmConcurrency());
        tenants.pipeInput("key/0123456789abcdef", (byte[]) null);
        assertNull(store.get("key/0123456789abcdef"));
    }

    @Test
    void aRecordOfTheWrongShapeIsSkippedAndTheGlobalThreadGoesOn() {
        tenants.pipeInput("tenant/acme", "not json".getBytes(StandardCharsets.UTF_8));
        tenants.pipeInput(
                "tenant/other",
                TenantEntries.bytes(new TenantRecord("acme", TenantStatus.ENABLED, Instant.EPOCH, null)));
        tenants.pipeInput("nobody/knows", "{}".getBytes(StandardCharsets.UTF_8));
        assertNull(store.get("tenant/acme"));
        assertNull(store.get("tenant/other"), "a key naming another tenant than its record");
        assertNull(store.get("nobody/knows"));
        byte[] good = TenantEntries.bytes(new TenantRecord("acme", TenantStatus.DISABLED, Instant.EPOCH, null));
        tenants.pipeInput("tenant/acme", good);
        assertArrayEquals(good, store.get("tenant/acme"));
    }
}
