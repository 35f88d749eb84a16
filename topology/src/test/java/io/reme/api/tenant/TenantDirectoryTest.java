package io.reme.api.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.api.ApiException;
import io.reme.llm.RequestSecret;
import io.reme.session.SessionSettings;
import io.reme.tenant.ApiKeyRecord;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

class TenantDirectoryTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final String STATIC_KEY = "acme-key-0123456789abcdef";

    private final NavigableMap<String, byte[]> entries = new TreeMap<>();
    private final TenantDirectory directory =
            new TenantDirectory(ApiKeys.single("acme", STATIC_KEY), () -> new MapStore(entries), CLOCK);

    private String issued(String tenant, Instant expiresAt, Instant revoked) {
        ApiKeyHash.Issued key = ApiKeyHash.issue();
        put(
                TenantEntries.apiKeyKey(key.id()),
                new ApiKeyRecord(
                        key.id(), tenant, ApiKeyHash.hex(key.key()), NOW.minusSeconds(60), expiresAt, revoked));
        return key.key();
    }

    private void tenant(String tenant, TenantStatus status) {
        put(TenantEntries.tenantKey(tenant), new TenantRecord(tenant, status, NOW, TenantPolicy.NONE));
    }

    private void put(String key, Object record) {
        entries.put(key, TenantEntries.bytes(record));
    }

    private int refusal(String key) {
        return assertThrows(ApiException.class, () -> directory.authenticate("Bearer " + key))
                .status();
    }

    @Test
    void anIssuedKeyOfAnEnabledTenantIsItsTenant() {
        tenant("initech", TenantStatus.ENABLED);
        String key = issued("initech", null, null);
        assertEquals("initech", directory.authenticate("Bearer " + key));
        assertEquals("initech", directory.authenticate("bearer " + key), "the scheme is case-insensitive");
    }

    @Test
    void aWrongSecretUnderAKnownIdIsRefused() {
        tenant("initech", TenantStatus.ENABLED);
        String key = issued("initech", null, null);
        String forged = key.substring(0, key.length() - 2) + (key.endsWith("A") ? "BB" : "AA");
        assertNotEquals(key, forged);
        assertEquals(401, refusal(forged));
        assertEquals(401, refusal("rk_0123456789abcdef_whatever"));
        assertEquals(401, refusal("not-a-key-at-all-0123"));
    }

    @Test
    void revokedExpiredDisabledAndDeletedAreRefused() {
        tenant("initech", TenantStatus.ENABLED);
        assertEquals(401, refusal(issued("initech", null, NOW.minusSeconds(1))));
        assertEquals(401, refusal(issued("initech", NOW, null)), "expired at its expiresAt");
        assertEquals("initech", directory.authenticate("Bearer " + issued("initech", NOW.plusSeconds(1), null)));
        assertEquals(401, refusal(issued("nobody", null, null)), "a key whose tenant is not in the store");
        tenant("initech", TenantStatus.DISABLED);
        String key = issued("initech", null, null);
        assertEquals(403, refusal(key));
        tenant("initech", TenantStatus.DELETED);
        assertEquals(401, refusal(key));
    }

    @Test
    void staticKeysComeFirstAndTheStoreCanStillRefuseTheirTenant() {
        assertEquals("acme", directory.authenticate("Bearer " + STATIC_KEY), "not in the store: the static layer");
        tenant("acme", TenantStatus.DISABLED);
        assertEquals(403, refusal(STATIC_KEY));
        tenant("acme", TenantStatus.DELETED);
        assertEquals(401, refusal(STATIC_KEY));
    }

    @Test
    void staticKeysWorkWhileTheStoreCannotBeReadButIssuedOnesWait() {
        TenantDirectory starting = new TenantDirectory(
                ApiKeys.single("acme", STATIC_KEY),
                () -> {
                    throw new InvalidStateStoreException("not yet");
                },
                CLOCK);
        assertEquals("acme", starting.authenticate("Bearer " + STATIC_KEY));
        ApiException waiting = assertThrows(
                ApiException.class,
                () -> starting.authenticate("Bearer " + ApiKeyHash.issue().key()));
        assertEquals(503, waiting.status());
        assertEquals(TenantPolicy.NONE, starting.policy("acme"));
    }

    @Test
    void instancesCallEachOtherWithAKeyDerivedFromTheDeploymentSecret() {
        RequestSecret secret = RequestSecret.random();
        TenantDirectory withSecret =
                new TenantDirectory(ApiKeys.single("acme", STATIC_KEY), () -> new MapStore(entries), CLOCK, secret);
        tenant("initech", TenantStatus.ENABLED);
        String internal = withSecret.internalAuthorization("initech").orElseThrow();
        assertEquals("initech", withSecret.authenticate(internal));
        assertEquals(
                "Bearer " + STATIC_KEY, withSecret.internalAuthorization("acme").orElseThrow());
        // Another tenant's derived key under this tenant's name, another secret's, or no secret at all.
        tenant("hooli", TenantStatus.ENABLED);
        String hooli = withSecret.internalAuthorization("hooli").orElseThrow();
        String forged = "Bearer ri_initech_" + hooli.substring(hooli.lastIndexOf('_') + 1);
        assertEquals(
                401,
                assertThrows(ApiException.class, () -> withSecret.authenticate(forged))
                        .status());
        TenantDirectory otherSecret = new TenantDirectory(
                ApiKeys.single("acme", STATIC_KEY), () -> new MapStore(entries), CLOCK, RequestSecret.random());
        assertEquals(
                401,
                assertThrows(ApiException.class, () -> otherSecret.authenticate(internal))
                        .status());
        assertEquals(
                401,
                assertThrows(ApiException.class, () -> directory.authenticate(internal))
                        .status());
        // A deleted tenant is still being erased, and the erasure reaches the other instances with this key.
        tenant("initech", TenantStatus.DELETED);
        assertEquals("initech", withSecret.authenticate(internal));
        tenant("initech", TenantStatus.DISABLED);
        assertEquals(
                403,
                assertThrows(ApiException.class, () -> withSecret.authenticate(internal))
                        .status());
    }

    @Test
    void issuedKeysAreShapedAndHashedAsDocumented() {
        ApiKeyHash.Issued key = ApiKeyHash.issue();
        assertEquals(key.id(), ApiKeyHash.idOf(key.key()));
        assertEquals(3 + 16 + 1 + 43, key.key().length());
        assertNull(ApiKeyHash.idOf("rk_0123456789ABCDEF_x"), "upper-case hex is not an id we issue");
        assertNull(ApiKeyHash.idOf("rk_short"));
        assertEquals(64, ApiKeyHash.hex(key.key()).length());
    }

    @Test
    void aPolicyThatDoesNotFitThisInstancesSessionSettingsIsA400() {
        TenantDirectory knowing = directory.withSessionSettings(SessionSettings.defaults());
        TenantPolicy reserveTooLarge = TenantPolicy.NONE.withContext(null, null, 90_000);
        ApiException refused = assertThrows(ApiException.class, () -> knowing.checkPolicy("acme", reserveTooLarge));
        assertEquals(400, refused.status());
        assertEquals("invalid_policy", refused.code());
        assertThrows(
                ApiException.class,
                () -> knowing.checkPolicy("acme", TenantPolicy.NONE.withPeriods(null, Duration.ofMinutes(20))));
        knowing.checkPolicy("acme", TenantPolicy.NONE.withContext(32768, 0.8, 4000));
        directory.checkPolicy("acme", reserveTooLarge); // nothing to check against
    }
}
