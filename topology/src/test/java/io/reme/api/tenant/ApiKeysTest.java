package io.reme.api.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ApiKeysTest {
    private static final String ACME_KEY = "acme-key-0123456789abcdef";
    private static final String GLOBEX_KEY = "globex-key-0123456789abcdef";
    private static final ApiKeys KEYS = ApiKeys.parse("acme:" + ACME_KEY + ",globex:" + GLOBEX_KEY);

    private static IllegalArgumentException rejected(String spec) {
        return assertThrows(IllegalArgumentException.class, () -> ApiKeys.parse(spec));
    }

    @Test
    void eachKeyMapsToItsTenant() {
        assertFalse(KEYS.isEmpty());
        assertEquals(Optional.of("acme"), KEYS.tenantOf("Bearer " + ACME_KEY));
        assertEquals(Optional.of("globex"), KEYS.tenantOf("Bearer " + GLOBEX_KEY));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", ",", " , ,"})
    void anEmptySpecHasNoKeys(String spec) {
        ApiKeys keys = ApiKeys.parse(spec);
        assertTrue(keys.isEmpty());
        assertEquals(Optional.empty(), keys.tenantOf("Bearer "));
        assertEquals(Optional.empty(), keys.tenantOf("Bearer " + ACME_KEY));
    }

    @Test
    void whitespaceAndEmptyEntriesAroundPairsAreIgnored() {
        ApiKeys keys = ApiKeys.parse(" acme:" + ACME_KEY + " ,, globex:" + GLOBEX_KEY + ",");
        assertEquals(Optional.of("acme"), keys.tenantOf("Bearer " + ACME_KEY));
        assertEquals(Optional.of("globex"), keys.tenantOf("Bearer " + GLOBEX_KEY));
    }

    @Test
    void theKeyIsEverythingAfterTheFirstColon() {
        ApiKeys keys = ApiKeys.parse("acme:abc:def:0123456789");
        assertEquals(Optional.of("acme"), keys.tenantOf("Bearer abc:def:0123456789"));
        assertEquals(Optional.empty(), keys.tenantOf("Bearer def:0123456789"));
    }

    @Test
    void keysNeedSixteenCharacters() {
        IllegalArgumentException e = rejected("acme:" + "k".repeat(15));
        assertTrue(e.getMessage().contains("acme"), e::getMessage);
        assertTrue(e.getMessage().contains("16"), e::getMessage);

        ApiKeys keys = ApiKeys.parse("acme:" + "k".repeat(16));
        assertEquals(Optional.of("acme"), keys.tenantOf("Bearer " + "k".repeat(16)));
    }

    @Test
    void aTenantHasOneKey() {
        IllegalArgumentException e = rejected("acme:" + ACME_KEY + ",acme:" + GLOBEX_KEY);
        assertTrue(e.getMessage().contains("acme"), e::getMessage);
    }

    @Test
    void aKeyBelongsToOneTenant() {
        // Otherwise which tenant a request acts for would depend on map iteration order.
        rejected("acme:" + ACME_KEY + ",globex:" + ACME_KEY);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "acme",
                ":" + ACME_KEY,
                "acme:",
                "acme " + ACME_KEY,
                "acme=" + ACME_KEY,
                "acme:" + ACME_KEY + ",globex"
            })
    void malformedPairsAreRejected(String spec) {
        rejected(spec);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ac/me", "../acme", "-acme", "acme corp", "ä"})
    void tenantsMustBeSafeIds(String tenant) {
        IllegalArgumentException e = rejected(tenant + ":" + ACME_KEY);
        assertTrue(e.getMessage().contains("tenant"), e::getMessage);
    }

    @Test
    void aTenantOfSixtyFiveCharactersIsRejected() {
        rejected("t".repeat(65) + ":" + ACME_KEY);
        assertFalse(ApiKeys.parse("t".repeat(64) + ":" + ACME_KEY).isEmpty());
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(
            strings = {
                "",
                "Bearer",
                "Bearer ",
                ACME_KEY,
                "Basic " + ACME_KEY,
                "Token " + ACME_KEY,
                "Bearer" + ACME_KEY,
                "Bearer acme",
                "Bearer " + ACME_KEY + "x",
                "Bearer cme-key-0123456789abcdef",
                "Bearer ACME-KEY-0123456789ABCDEF",
                "Bearer acme:" + ACME_KEY,
                "Bearer " + ACME_KEY + " " + GLOBEX_KEY
            })
    void noTenantWithoutTheRightBearerToken(String authorization) {
        assertEquals(Optional.empty(), KEYS.tenantOf(authorization));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer  ", "bearer ", "BEARER "})
    void theSchemeIsCaseInsensitiveAndSurroundingSpaceIsIgnored(String scheme) {
        assertEquals(Optional.of("acme"), KEYS.tenantOf(scheme + ACME_KEY + " "));
    }

    @Test
    void singleMakesAOneTenantSet() {
        ApiKeys keys = ApiKeys.single("demo", ACME_KEY);
        assertEquals(Optional.of("demo"), keys.tenantOf("Bearer " + ACME_KEY));
        assertEquals(Optional.empty(), keys.tenantOf("Bearer " + GLOBEX_KEY));
        assertThrows(IllegalArgumentException.class, () -> ApiKeys.single("demo", "short"));
    }
}
