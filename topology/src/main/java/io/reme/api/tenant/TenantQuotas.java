package io.reme.api.tenant;

import io.reme.api.ApiException;
import io.reme.prometheus.PrometheusMetrics;
import io.reme.tenant.TenantPolicy;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The per-tenant quotas of one instance: HTTP requests per second and messages per second, token
 * buckets per tenant, rates from the tenant's policy in the global store (a changed rate starts a
 * fresh bucket). A refused request is a 429 with {@code Retry-After} and is counted per tenant.
 * Per instance rather than cluster-wide: what a quota protects is an instance's capacity, and a
 * shared counter would put a network round trip in front of every request.
 */
public final class TenantQuotas {
    /** The quota a refusal was for, as the metrics label it. */
    public enum Quota {
        REQUESTS,
        MESSAGES
    }

    private final TenantDirectory directory;
    private final PrometheusMetrics metrics;
    private final LongSupplier nanoTime;
    private final Map<String, TokenBucket> requests = new ConcurrentHashMap<>();
    private final Map<String, TokenBucket> messages = new ConcurrentHashMap<>();

    public TenantQuotas(TenantDirectory directory, PrometheusMetrics metrics, LongSupplier nanoTime) {
        this.directory = directory;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
    }

    /** One request of the tenant; 429 when past its requests per second. */
    public void admitRequest(String tenant) {
        TenantPolicy policy = directory.policy(tenant);
        admit(tenant, Quota.REQUESTS, requests, policy.requestsPerSecond(), 1);
    }

    /** {@code count} messages of the tenant; 429 when past its messages per second. */
    public void admitMessages(String tenant, int count) {
        TenantPolicy policy = directory.policy(tenant);
        admit(tenant, Quota.MESSAGES, messages, policy.messagesPerSecond(), count);
    }

    private void admit(String tenant, Quota quota, Map<String, TokenBucket> buckets, Double rate, int count) {
        if (rate == null) {
            buckets.remove(tenant);
            return;
        }
        long now = nanoTime.getAsLong();
        TokenBucket bucket = buckets.compute(
                tenant,
                (t, current) -> current != null && current.rate() == rate ? current : new TokenBucket(rate, now));
        long wait = bucket.take(count, now);
        if (wait > 0) {
            if (metrics != null) {
                metrics.throttled(tenant, quota.name().toLowerCase(Locale.ROOT));
            }
            throw ApiException.tooManyRequests(
                    "tenant " + tenant + " is past its quota of " + rate + " "
                            + quota.name().toLowerCase(Locale.ROOT) + " per second on this instance",
                    (int) Math.ceil(wait / 1e9));
        }
    }
}
