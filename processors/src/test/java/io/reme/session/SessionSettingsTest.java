package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.context.ContextPolicy;
import io.reme.tenant.TenantPolicy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A tenant's policy laid over the instance's session settings, and checked there as a whole. */
class SessionSettingsTest {
    private static final SessionSettings INSTANCE = SessionSettings.defaults()
            .withTenantPolicies(Map.of("configured", new ContextPolicy(20000, 0.5, 1000, 500)));

    @Test
    void aPolicyWithoutSessionSettingsLeavesTheInstancesAsTheyAre() {
        assertSame(INSTANCE, INSTANCE.forTenant("acme", TenantPolicy.NONE));
        assertSame(INSTANCE, INSTANCE.forTenant("acme", new TenantPolicy(5.0, 10.0, 2)));
        assertSame(INSTANCE, INSTANCE.forTenant("acme", null));
    }

    @Test
    void eachFieldSetReplacesTheTenantsOwnAndTheRestStays() {
        SessionSettings acme = INSTANCE.forTenant("acme", TenantPolicy.NONE.withContext(20000, null, null));
        assertEquals(
                new ContextPolicy(20000, ContextPolicy.DEFAULT_COMPACT_RATIO, ContextPolicy.DEFAULT_RESERVE, 0),
                acme.policyFor("acme"));
        assertEquals(ContextPolicy.defaults(), acme.policyFor("other"), "other tenants keep the default");
        assertEquals(INSTANCE.lifetime().idleAfter(), acme.lifetime().idleAfter());

        SessionSettings configured = INSTANCE.forTenant("configured", TenantPolicy.NONE.withContext(null, null, 2000));
        assertEquals(new ContextPolicy(20000, 0.5, 2000, 500), configured.policyFor("configured"), "over the config's");

        SessionSettings brief =
                INSTANCE.forTenant("acme", TenantPolicy.NONE.withPeriods(Duration.ofMinutes(5), Duration.ofHours(2)));
        assertEquals(Duration.ofMinutes(5), brief.lifetime().idleAfter());
        assertEquals(Duration.ofHours(2), brief.lifetime().retention());
        assertEquals(ContextPolicy.defaults(), brief.policyFor("acme"));
    }

    @Test
    void whatDoesNotHoldTogetherWithTheInstanceIsRefused() {
        // The reserve must stay under floor(131072 x 0.7 x 0.95) = 87162.
        assertThrows(
                IllegalArgumentException.class,
                () -> INSTANCE.forTenant("acme", TenantPolicy.NONE.withContext(null, null, 90_000)));
        // A window too small for the instance's reserve of 10000.
        assertThrows(
                IllegalArgumentException.class,
                () -> INSTANCE.forTenant("acme", TenantPolicy.NONE.withContext(4000, null, null)));
        // A retention not longer than the instance's idle period of 30 minutes, or than the policy's own.
        assertThrows(
                IllegalArgumentException.class,
                () -> INSTANCE.forTenant("acme", TenantPolicy.NONE.withPeriods(null, Duration.ofMinutes(20))));
        assertThrows(
                IllegalArgumentException.class,
                () -> INSTANCE.forTenant("acme", TenantPolicy.NONE.withPeriods(Duration.ofDays(40), null)));
    }
}
