package io.reme.api.tenant;

import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.cluster.StreamsStores;
import io.reme.context.ContextPolicy;
import io.reme.llm.RequestSecret;
import io.reme.message.SafeId;
import io.reme.session.SessionSettings;
import io.reme.tenant.ApiKeyRecord;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a bearer token is, and what the tenants' global store says about tenants and keys. Two layers:
 * the static keys of {@code reme.api.keys} (and the embedded default's {@code demo} key) first, then
 * the keys issued through the admin API, found by the id they carry and checked against their stored
 * hash in constant time. The store can still refuse a static key's tenant (disabled or deleted
 * there). Thread-safe; reads go to this instance's copy of the global store.
 */
public final class TenantDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(TenantDirectory.class);
    private static final String BEARER = "Bearer ";
    private static final StringSerializer KEYS = new StringSerializer();
    /** Keys instances derive for one another (see {@link #internalAuthorization}). */
    private static final String INTERNAL_PREFIX = "ri_";

    private final ApiKeys bootstrap;
    private final Supplier<ReadOnlyKeyValueStore<String, byte[]>> stores;
    private final Clock clock;
    private final RequestSecret secret;
    /** The instance's session settings, which a tenant's policy is laid over; null when not known here. */
    private final SessionSettings sessions;

    private volatile ReadOnlyKeyValueStore<String, byte[]> store;

    /**
     * @param stores opens this instance's view of the global store; throws {@link InvalidStateStoreException}
     *     while Streams cannot serve it; null for no store (static keys only)
     */
    public TenantDirectory(ApiKeys bootstrap, Supplier<ReadOnlyKeyValueStore<String, byte[]>> stores, Clock clock) {
        this(bootstrap, stores, clock, null);
    }

    /** @param secret the deployment's secret, from which instances derive their keys for one another; null for none */
    public TenantDirectory(
            ApiKeys bootstrap,
            Supplier<ReadOnlyKeyValueStore<String, byte[]>> stores,
            Clock clock,
            RequestSecret secret) {
        this(bootstrap, stores, clock, secret, null);
    }

    private TenantDirectory(
            ApiKeys bootstrap,
            Supplier<ReadOnlyKeyValueStore<String, byte[]>> stores,
            Clock clock,
            RequestSecret secret,
            SessionSettings sessions) {
        this.bootstrap = bootstrap;
        this.stores = stores;
        this.clock = clock;
        this.secret = secret;
        this.sessions = sessions;
    }

    /**
     * This directory, knowing the instance's session settings: a policy whose session settings do not
     * hold together with them is refused ({@link #checkPolicy}).
     */
    public TenantDirectory withSessionSettings(SessionSettings settings) {
        return new TenantDirectory(bootstrap, stores, clock, secret, settings);
    }

    /**
     * The {@code Authorization} header for a call to another instance on the tenant's behalf made by
     * this instance itself (no client key at hand): the tenant's static key, else the key derived from
     * the deployment's secret; empty when there is neither.
     */
    public Optional<String> internalAuthorization(String tenant) {
        Optional<String> fixed = bootstrap.authorizationOf(tenant);
        if (fixed.isPresent() || secret == null) {
            return fixed;
        }
        return Optional.of(BEARER + INTERNAL_PREFIX + tenant + "_" + secret.internalKey(tenant));
    }

    /**
     * This instance calling on a tenant's behalf (a deleted tenant's erasure, the workers' memory lookup),
     * with {@link #internalAuthorization}'s key.
     */
    public Caller instanceCaller(String tenant) {
        return new Caller(
                tenant,
                "instance",
                false,
                new Caller.Credential(internalAuthorization(tenant).orElse(null)));
    }

    /** The static keys only: no store, no issued keys (a server without Streams, in tests). */
    public static TenantDirectory staticOnly(ApiKeys bootstrap) {
        return new TenantDirectory(bootstrap, null, Clock.systemUTC());
    }

    /**
     * The directory of a running app: its static keys, the tenants' global store of its Streams client,
     * the deployment's secret (instances derive their keys for one another from it) and the instance's
     * session settings (which a tenant's policy is laid over).
     */
    public static TenantDirectory of(
            ApiKeys bootstrap, StreamsStores streams, RequestSecret secret, SessionSettings sessions) {
        return new TenantDirectory(bootstrap, storeOf(streams), Clock.systemUTC(), secret, sessions);
    }

    /** The global store of a Kafka Streams client built by {@code RemeTopology}. */
    public static Supplier<ReadOnlyKeyValueStore<String, byte[]>> storeOf(StreamsStores streams) {
        return () -> streams.store(StoreQueryParameters.fromNameAndType(
                TenantEntries.STORE, QueryableStoreTypes.<String, byte[]>keyValueStore()));
    }

    public ApiKeys bootstrap() {
        return bootstrap;
    }

    /**
     * The caller presenting an {@code Authorization: Bearer <key>} header.
     *
     * @throws ApiException as {@link #authenticate} refuses the key
     */
    public Caller caller(String authorization) {
        String tenant = authenticate(authorization);
        String key = bearer(authorization);
        String principal = bootstrap.tenantOf(authorization).isPresent()
                ? "static"
                : key != null && key.startsWith(INTERNAL_PREFIX) ? "instance" : "key " + ApiKeyHash.idOf(key);
        return new Caller(tenant, principal, false, new Caller.Credential(authorization));
    }

    /**
     * The tenant of an {@code Authorization: Bearer <key>} header.
     *
     * @throws ApiException 401 for no key, an unknown, revoked or expired key, or a deleted tenant; 403
     *     for a disabled tenant; 503 while the store cannot be read and the key is not a static one
     */
    public String authenticate(String authorization) {
        Optional<String> fixed = bootstrap.tenantOf(authorization);
        if (fixed.isPresent()) {
            if (stores != null) {
                checkStatus(fixed.get(), tenantIfReadable(fixed.get()));
            }
            return fixed.get();
        }
        String key = bearer(authorization);
        if (key != null && key.startsWith(INTERNAL_PREFIX) && secret != null) {
            return internalCaller(key);
        }
        String id = key == null ? null : ApiKeyHash.idOf(key);
        if (id == null || stores == null) {
            throw unauthorized();
        }
        ApiKeyRecord record = apiKey(id).orElseThrow(TenantDirectory::unauthorized);
        // Hash first, always, so a known id with a wrong secret costs what an unknown one does.
        if (!ApiKeyHash.matches(key, record.hash()) || !record.liveAt(clock.instant())) {
            throw unauthorized();
        }
        // An issued key needs its tenant in the store (a static key's tenant may be absent there).
        Optional<TenantRecord> tenant = tenant(record.tenant());
        if (tenant.isEmpty()) {
            throw unauthorized();
        }
        checkStatus(record.tenant(), tenant);
        return record.tenant();
    }

    /** The tenant of an instance's own key ({@code ri_<tenant>_<hmac>}), compared in constant time. */
    private String internalCaller(String key) {
        int separator = key.lastIndexOf('_');
        String tenant = separator <= INTERNAL_PREFIX.length() ? "" : key.substring(INTERNAL_PREFIX.length(), separator);
        if (SafeId.problem("tenant", tenant) != null
                || !MessageDigest.isEqual(
                        secret.internalKey(tenant).getBytes(StandardCharsets.UTF_8),
                        key.substring(separator + 1).getBytes(StandardCharsets.UTF_8))) {
            throw unauthorized();
        }
        // A deleted tenant's data is still being erased, and the erasure fans out to the other instances
        // with this key: only instances hold the secret it derives from, so it stays valid after delete.
        Optional<TenantRecord> record = tenantIfReadable(tenant);
        if (record.isEmpty() || record.get().status() != TenantStatus.DELETED) {
            checkStatus(tenant, record);
        }
        return tenant;
    }

    /** The store's answer for a static key's tenant; a store not yet readable does not refuse static keys. */
    private Optional<TenantRecord> tenantIfReadable(String tenant) {
        try {
            return tenant(tenant);
        } catch (ApiException e) {
            return Optional.empty();
        }
    }

    private static void checkStatus(String tenant, Optional<TenantRecord> record) {
        if (record.isEmpty()) {
            return;
        }
        if (record.get().status() == TenantStatus.DELETED) {
            throw unauthorized();
        }
        if (record.get().status() == TenantStatus.DISABLED) {
            throw new ApiException(403, "tenant_disabled", "tenant " + tenant + " is disabled");
        }
    }

    private static ApiException unauthorized() {
        return ApiException.unauthorized();
    }

    private static String bearer(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return authorization.substring(BEARER.length()).trim();
    }

    /** The policy of a tenant; no limits for a tenant the store does not know or cannot show now. */
    public TenantPolicy policy(String tenant) {
        if (stores == null) {
            return TenantPolicy.NONE;
        }
        try {
            return tenant(tenant).map(TenantRecord::policy).orElse(TenantPolicy.NONE);
        } catch (ApiException e) {
            return TenantPolicy.NONE;
        }
    }

    /**
     * Refuses a policy whose session settings (window, idle period, retention) do not hold together with
     * this instance's, as {@link SessionSettings#forTenant} lays them over; nothing to check when this
     * directory does not know the instance's settings.
     *
     * @throws ApiException 400 {@code invalid_policy}
     */
    public void checkPolicy(String tenant, TenantPolicy policy) {
        if (sessions == null) {
            return;
        }
        try {
            sessions.forTenant(tenant, policy);
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, "invalid_policy", "policy not accepted: " + e.getMessage());
        }
    }

    /**
     * The context window {@code tenant}'s sessions run under on an instance with {@code instance}'s
     * settings: its policy's window laid over them ({@link SessionSettings#forTenant}), as the session
     * processors lay it; the instance's own when the policy does not hold together with them (the
     * processors then keep theirs too, and log it).
     */
    public ContextPolicy contextPolicy(SessionSettings instance, String tenant) {
        try {
            return instance.forTenant(tenant, policy(tenant)).policyFor(tenant);
        } catch (IllegalArgumentException e) {
            return instance.policyFor(tenant);
        }
    }

    /** How many of the tenant's LLM requests this instance's workers may hold at once (no cap: MAX_VALUE). */
    public int llmConcurrency(String tenant) {
        Integer cap = policy(tenant).llmConcurrency();
        return cap == null ? Integer.MAX_VALUE : cap;
    }

    public Optional<TenantRecord> tenant(String tenant) {
        byte[] value = raw(TenantEntries.tenantKey(tenant));
        return value == null ? Optional.empty() : parsed(TenantEntries.tenantKey(tenant), value, TenantEntries::tenant);
    }

    public Optional<ApiKeyRecord> apiKey(String id) {
        byte[] value = raw(TenantEntries.apiKeyKey(id));
        return value == null ? Optional.empty() : parsed(TenantEntries.apiKeyKey(id), value, TenantEntries::apiKey);
    }

    public List<TenantRecord> tenants() {
        List<TenantRecord> tenants = new ArrayList<>();
        scan(
                TenantEntries.TENANT_PREFIX,
                (key, value) -> parsed(key, value, TenantEntries::tenant).ifPresent(tenants::add));
        return tenants;
    }

    /** Every key record of a tenant, revoked and expired ones included. */
    public List<ApiKeyRecord> apiKeys(String tenant) {
        List<ApiKeyRecord> keys = new ArrayList<>();
        scan(
                TenantEntries.KEY_PREFIX,
                (key, value) -> parsed(key, value, TenantEntries::apiKey)
                        .filter(record -> record.tenant().equals(tenant))
                        .ifPresent(keys::add));
        return keys;
    }

    /** The stored bytes under a key, or null; 503 while the store cannot be read. */
    public byte[] raw(String key) {
        return read(store -> store.get(key));
    }

    private interface Entry {
        void accept(String key, byte[] value);
    }

    private void scan(String prefix, Entry entry) {
        read(store -> {
            try (KeyValueIterator<String, byte[]> all = store.prefixScan(prefix, KEYS)) {
                while (all.hasNext()) {
                    KeyValue<String, byte[]> next = all.next();
                    entry.accept(next.key, next.value);
                }
            }
            return null;
        });
    }

    private interface Read<T> {
        T apply(ReadOnlyKeyValueStore<String, byte[]> store);
    }

    private <T> T read(Read<T> read) {
        if (stores == null) {
            return null;
        }
        try {
            ReadOnlyKeyValueStore<String, byte[]> current = store;
            if (current == null) {
                current = stores.get();
                store = current;
            }
            return read.apply(current);
        } catch (InvalidStateStoreException e) {
            store = null;
            throw ApiException.unavailable("the tenants store is not ready; ask again in a moment");
        }
    }

    /** A stored record, parsed; one of the wrong shape (restored as written) is logged and ignored. */
    private static <T> Optional<T> parsed(String key, byte[] value, Function<byte[], T> parser) {
        try {
            return Optional.of(parser.apply(value));
        } catch (IllegalArgumentException e) {
            LOG.warn("tenant record ignored key={} reason={}", key, e.getMessage());
            return Optional.empty();
        }
    }
}
