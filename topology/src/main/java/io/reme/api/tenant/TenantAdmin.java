package io.reme.api.tenant;

import io.reme.api.ApiException;
import io.reme.message.SafeId;
import io.reme.retry.Poll;
import io.reme.tenant.ApiKeyRecord;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API ({@code /v1/admin/...}): tenants, their keys and policies. Authenticated only by the
 * admin key ({@code reme.admin.key}), never by a tenant's key; without an admin key configured the
 * routes do not exist (404). Writes go to the {@code tenants} topic, acknowledged by the broker
 * before the answer, which then waits (up to the visibility timeout) until this instance's global
 * store shows the write, so the next admin call here reads it; other instances see it within a poll
 * of the topic. Reads come from the global store. A new key is answered once and stored only as its hash.
 */
public final class TenantAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(TenantAdmin.class);
    private static final Duration VISIBILITY_POLL = Duration.ofMillis(10);
    private static final String BEARER = "Bearer ";

    private final byte[] adminKeyHash;
    private final TenantDirectory directory;
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final TenantErasure erasure;
    private final Clock clock;
    private final Duration visibilityTimeout;

    /** @param adminKey the admin key, or null/blank for no admin API */
    public TenantAdmin(
            String adminKey,
            TenantDirectory directory,
            Producer<byte[], byte[]> producer,
            String topic,
            TenantErasure erasure,
            Clock clock,
            Duration visibilityTimeout) {
        this.adminKeyHash = adminKey == null || adminKey.isBlank() ? null : ApiKeyHash.digest(adminKey);
        this.directory = directory;
        this.producer = producer;
        this.topic = topic;
        this.erasure = erasure;
        this.clock = clock;
        this.visibilityTimeout = visibilityTimeout;
    }

    /** No admin API: every admin route is a 404. */
    public static TenantAdmin disabled(TenantDirectory directory) {
        return new TenantAdmin(null, directory, null, null, TenantErasure.NONE, Clock.systemUTC(), Duration.ZERO);
    }

    /** The answer to {@link #createTenant}: the tenant, and whether it was created (not only updated). */
    public record Saved(boolean created, Map<String, Object> tenant) {}

    /**
     * Checks the admin key (constant time, on hashes so the lengths leak nothing).
     *
     * @throws ApiException 404 when no admin key is configured, 401 for any other key
     */
    public void authenticate(String method, String path, String authorization) {
        if (adminKeyHash == null) {
            throw new ApiException(404, "not_found", "no route for " + method + " " + path);
        }
        String presented = authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? authorization.substring(BEARER.length()).trim()
                : "";
        if (!MessageDigest.isEqual(adminKeyHash, ApiKeyHash.digest(presented))) {
            throw new ApiException(401, "unauthorized", "send the admin key as 'Authorization: Bearer <key>'");
        }
    }

    /** {@code POST /v1/admin/tenants}: creates a tenant, or sets an existing one's {@code status}. */
    public synchronized Saved createTenant(TenantCreate body) {
        String tenant = tenantOf(body.tenant());
        TenantStatus status = body.statusOrNull();
        TenantRecord existing = directory.tenant(tenant).orElse(null);
        if (existing != null && existing.status() == TenantStatus.DELETED) {
            throw new ApiException(409, "tenant_deleted", "tenant " + tenant + " was deleted; its name is not reused");
        }
        TenantRecord record = existing == null
                ? new TenantRecord(tenant, status == null ? TenantStatus.ENABLED : status, now(), TenantPolicy.NONE)
                : existing.withStatus(status == null ? existing.status() : status);
        write(TenantEntries.tenantKey(tenant), record);
        LOG.info("tenant {} tenant={} status={}", existing == null ? "created" : "updated", tenant, record.status());
        return new Saved(existing == null, tenantView(record));
    }

    /** {@code GET /v1/admin/tenants}. */
    public Map<String, Object> listTenants() {
        return Map.of(
                "tenants",
                directory.tenants().stream().map(TenantAdmin::tenantView).toList());
    }

    /**
     * {@code DELETE /v1/admin/tenants/{tenant}}: marks the tenant deleted (which refuses every key of
     * it at once, static ones included), revokes its issued keys, then hands over to the erasure.
     */
    public synchronized Map<String, Object> deleteTenant(String tenant) {
        tenantOf(tenant);
        TenantRecord existing = directory.tenant(tenant).orElse(null);
        boolean isStatic = directory.bootstrap().authorizationOf(tenant).isPresent();
        if (existing == null && !isStatic || existing != null && existing.status() == TenantStatus.DELETED) {
            throw tenantNotFound(tenant);
        }
        TenantRecord deleted = existing == null
                ? new TenantRecord(tenant, TenantStatus.DELETED, now(), TenantPolicy.NONE)
                : existing.withStatus(TenantStatus.DELETED);
        write(TenantEntries.tenantKey(tenant), deleted);
        List<String> revoked = new ArrayList<>();
        Instant now = now();
        for (ApiKeyRecord key : directory.apiKeys(tenant)) {
            if (key.revoked() == null) {
                write(TenantEntries.apiKeyKey(key.id()), key.revokedAt(now));
                revoked.add(key.id());
            }
        }
        String erasing = erasure.erase(tenant);
        LOG.info("tenant deleted tenant={} revokedKeys={} erasure={}", tenant, revoked.size(), erasing);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("tenant", tenant);
        answer.put("status", "deleted");
        answer.put("revokedKeys", revoked);
        answer.put("erasure", erasing);
        return answer;
    }

    /** {@code POST /v1/admin/tenants/{tenant}/keys}: a new key, its text answered this once only. */
    public synchronized Map<String, Object> issueKey(String tenant, KeyRequest body) {
        TenantRecord record = liveTenant(tenant);
        Instant expiresAt = body.expiry();
        if (expiresAt != null && !expiresAt.isAfter(now())) {
            throw new ApiException(400, KeyRequest.INVALID, "expiresAt must be in the future");
        }
        ApiKeyHash.Issued issued = ApiKeyHash.issue();
        ApiKeyRecord key =
                new ApiKeyRecord(issued.id(), record.tenant(), ApiKeyHash.hex(issued.key()), now(), expiresAt, null);
        write(TenantEntries.apiKeyKey(key.id()), key);
        LOG.info("api key issued tenant={} keyId={} expiresAt={}", tenant, key.id(), expiresAt);
        Map<String, Object> answer = new LinkedHashMap<>(keyView(key));
        answer.put("key", issued.key());
        return answer;
    }

    /** {@code GET /v1/admin/tenants/{tenant}/keys}: ids and dates, never the keys or their hashes. */
    public Map<String, Object> listKeys(String tenant) {
        liveTenant(tenant);
        return Map.of(
                "tenant",
                tenant,
                "keys",
                directory.apiKeys(tenant).stream().map(this::keyView).toList());
    }

    /** {@code DELETE /v1/admin/tenants/{tenant}/keys/{id}}. */
    public synchronized Map<String, Object> revokeKey(String tenant, String id) {
        tenantOf(tenant);
        if (SafeId.problem("key id", id) != null) {
            throw new ApiException(400, "invalid_key_id", SafeId.problem("key id", id));
        }
        ApiKeyRecord key = directory
                .apiKey(id)
                .filter(found -> found.tenant().equals(tenant))
                .orElseThrow(() -> new ApiException(404, "key_not_found", "tenant " + tenant + " has no key " + id));
        ApiKeyRecord revoked = key.revokedAt(now());
        if (!revoked.equals(key)) {
            write(TenantEntries.apiKeyKey(id), revoked);
            LOG.info("api key revoked tenant={} keyId={}", tenant, id);
        }
        return keyView(revoked);
    }

    /** {@code PUT /v1/admin/tenants/{tenant}/policy}: replaces the tenant's policy (absent = unlimited). */
    public synchronized Map<String, Object> putPolicy(String tenant, TenantPolicy policy) {
        TenantRecord record = liveTenant(tenant);
        TenantRecord updated = record.withPolicy(policy == null ? TenantPolicy.NONE : policy);
        directory.checkPolicy(tenant, updated.policy());
        write(TenantEntries.tenantKey(tenant), updated);
        LOG.info("tenant policy set tenant={} policy={}", tenant, updated.policy());
        return tenantView(updated);
    }

    /** A tenant the store knows and that is not deleted; 404 otherwise. */
    private TenantRecord liveTenant(String tenant) {
        tenantOf(tenant);
        return directory
                .tenant(tenant)
                .filter(record -> record.status() != TenantStatus.DELETED)
                .orElseThrow(() -> tenantNotFound(tenant));
    }

    private static ApiException tenantNotFound(String tenant) {
        return new ApiException(
                404, "tenant_not_found", "no tenant " + tenant + " (create it with POST /v1/admin/tenants)");
    }

    private static String tenantOf(String tenant) {
        String problem = SafeId.problem("tenant", tenant);
        if (problem != null) {
            throw new ApiException(400, "invalid_tenant", problem);
        }
        return tenant;
    }

    private Instant now() {
        return clock.instant();
    }

    private static Map<String, Object> tenantView(TenantRecord record) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("tenant", record.tenant());
        view.put("status", record.status().name().toLowerCase(Locale.ROOT));
        view.put("created", record.created());
        view.put("policy", record.policy());
        return view;
    }

    private Map<String, Object> keyView(ApiKeyRecord key) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", key.id());
        view.put("tenant", key.tenant());
        view.put("created", key.created());
        view.put("expiresAt", key.expiresAt());
        view.put("revoked", key.revoked());
        view.put("live", key.liveAt(now()));
        return view;
    }

    /**
     * Produces the record, waits for the broker's acknowledgement, then for this instance's global
     * store to show it (so a following admin call here reads it).
     */
    private void write(String key, Object record) {
        byte[] value = TenantEntries.bytes(record);
        try {
            producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value))
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while writing the tenants topic");
        } catch (ExecutionException | TimeoutException e) {
            throw ApiException.unavailable("the change could not be written to Kafka", e);
        }
        try {
            if (!Poll.until(visibilityTimeout, VISIBILITY_POLL, () -> Arrays.equals(stored(key), value))) {
                LOG.warn("tenant change written but not yet in the local store key={}", key);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while waiting for the tenants store");
        }
    }

    private byte[] stored(String key) {
        try {
            return directory.raw(key);
        } catch (ApiException e) {
            return null;
        }
    }
}
