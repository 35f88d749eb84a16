package io.reme.session;

import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantRecord;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session settings each tenant's sessions run under: the instance's, with the tenant's stored
 * policy (the tenants' global store) laid over them by {@link SessionSettings#forTenant}. Cached per
 * tenant with the record's bytes: a tenant's record is read again at most once per {@link #RECHECK_MS}
 * of the processor's clock, and parsed again only when its bytes changed, so the per-message cost is a
 * map lookup. Used by one stream thread (the task's).
 *
 * <p>A stored policy that does not hold together with this instance's settings (instances may be
 * configured differently) is logged once and ignored: the tenant runs under the instance's settings.
 */
final class TenantSessionSettings {
    private static final Logger LOG = LoggerFactory.getLogger(TenantSessionSettings.class);
    private static final StringSerializer KEYS = new StringSerializer();

    /** How stale a tenant's settings may be, on the processor's clock: a policy change holds within this. */
    static final long RECHECK_MS = 1_000;

    private record Cached(byte[] bytes, SessionSettings settings, long checkedMs) {}

    private final SessionSettings instance;
    private final ReadOnlyKeyValueStore<String, byte[]> store;
    private final Map<String, Cached> cache = new HashMap<>();
    private Duration shortestIdle;
    private Duration shortestRetention;

    /** @param store the tenants' global store, or null for none (every tenant runs under {@code instance}) */
    TenantSessionSettings(SessionSettings instance, ReadOnlyKeyValueStore<String, byte[]> store) {
        this.instance = instance;
        this.store = store;
        this.shortestIdle = instance.lifetime().idleAfter();
        this.shortestRetention = instance.lifetime().retention();
    }

    /** The instance's settings, which sessions of a tenant without a session policy run under. */
    SessionSettings instance() {
        return instance;
    }

    /** The settings of {@code tenant}'s sessions, as of {@code nowMs} (the processor's clock) at the latest. */
    SessionSettings of(String tenant, long nowMs) {
        if (store == null) {
            return instance;
        }
        Cached cached = cache.get(tenant);
        if (cached != null && nowMs - cached.checkedMs() < RECHECK_MS) {
            return cached.settings();
        }
        return update(tenant, store.get(TenantEntries.tenantKey(tenant)), cached, nowMs)
                .settings();
    }

    /**
     * Reads every tenant's record again and the shortest idle period and retention among them (the
     * instance's included), which the sweeps scan up to. Costs one pass over the tenants, so it runs
     * with the sweep, not per message.
     */
    void refresh(long nowMs) {
        if (store == null) {
            return;
        }
        Duration idle = instance.lifetime().idleAfter();
        Duration retention = instance.lifetime().retention();
        try (KeyValueIterator<String, byte[]> all = store.prefixScan(TenantEntries.TENANT_PREFIX, KEYS)) {
            while (all.hasNext()) {
                KeyValue<String, byte[]> next = all.next();
                String tenant = next.key.substring(TenantEntries.TENANT_PREFIX.length());
                SessionSettings settings =
                        update(tenant, next.value, cache.get(tenant), nowMs).settings();
                idle = min(idle, settings.lifetime().idleAfter());
                retention = min(retention, settings.lifetime().retention());
            }
        }
        shortestIdle = idle;
        shortestRetention = retention;
    }

    /** The shortest idle period of any tenant, as of the last {@link #refresh}. */
    Duration shortestIdle() {
        return shortestIdle;
    }

    /** The shortest retention of any tenant, as of the last {@link #refresh}. */
    Duration shortestRetention() {
        return shortestRetention;
    }

    private Cached update(String tenant, byte[] bytes, Cached cached, long nowMs) {
        SessionSettings settings;
        if (cached != null && Arrays.equals(cached.bytes(), bytes)) {
            settings = cached.settings();
        } else {
            settings = parse(tenant, bytes);
        }
        Cached next = new Cached(bytes, settings, nowMs);
        cache.put(tenant, next);
        return next;
    }

    private SessionSettings parse(String tenant, byte[] bytes) {
        if (bytes == null) {
            return instance;
        }
        try {
            TenantRecord record = TenantEntries.tenant(bytes);
            SessionSettings settings = instance.forTenant(tenant, record.policy());
            if (!settings.equals(instance)) {
                LOG.info(
                        "tenant session settings applied tenant={} maxInputLength={} compactRatio={} reserve={} "
                                + "idleAfter={} retention={}",
                        tenant,
                        settings.policyFor(tenant).maxInputLength(),
                        settings.policyFor(tenant).compactRatio(),
                        settings.policyFor(tenant).reserve(),
                        settings.lifetime().idleAfter(),
                        settings.lifetime().retention());
            }
            return settings;
        } catch (IllegalArgumentException e) {
            LOG.warn(
                    "tenant session policy ignored, instance settings apply tenant={} reason={}",
                    tenant,
                    e.getMessage());
            return instance;
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
