package io.reme.api.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.api.ApiException;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TenantQuotasTest {
    private final NavigableMap<String, byte[]> entries = new TreeMap<>();
    private final TenantDirectory directory =
            new TenantDirectory(ApiKeys.parse(""), () -> new MapStore(entries), Clock.systemUTC());
    private final AtomicLong nanos = new AtomicLong();

    private void policy(String tenant, TenantPolicy policy) {
        entries.put(
                TenantEntries.tenantKey(tenant),
                TenantEntries.bytes(new TenantRecord(tenant, TenantStatus.ENABLED, Instant.EPOCH, policy)));
    }

    @Test
    void aTenantPastItsRateGets429WithRetryAfterAndIsCountedWhileOthersPass() {
        try (PrometheusMetrics metrics = new PrometheusMetrics(Set.of("flood"))) {
            TenantQuotas quotas = new TenantQuotas(directory, metrics, nanos::get);
            policy("flood", new TenantPolicy(2.0, null, null));
            quotas.admitRequest("flood");
            quotas.admitRequest("flood");
            ApiException refused = assertThrows(ApiException.class, () -> quotas.admitRequest("flood"));
            assertEquals(429, refused.status());
            assertEquals("too_many_requests", refused.code());
            assertEquals(1, refused.retryAfterSeconds());
            for (int i = 0; i < 1000; i++) {
                quotas.admitRequest("calm");
            }
            nanos.addAndGet(500_000_000L);
            quotas.admitRequest("flood");
            assertTrue(metrics.scrape().contains("reme_http_throttled_total{quota=\"requests\",tenant=\"flood\"} 1.0"));
        }
    }

    @Test
    void aChangedRateAppliesAtOnceAndNoRateMeansNoLimit() {
        TenantQuotas quotas = new TenantQuotas(directory, null, nanos::get);
        policy("acme", new TenantPolicy(null, 1.0, null));
        quotas.admitMessages("acme", 1);
        assertThrows(ApiException.class, () -> quotas.admitMessages("acme", 1));
        policy("acme", new TenantPolicy(null, 100.0, null));
        quotas.admitMessages("acme", 100);
        policy("acme", TenantPolicy.NONE);
        for (int i = 0; i < 100; i++) {
            quotas.admitMessages("acme", 1000);
        }
    }
}
