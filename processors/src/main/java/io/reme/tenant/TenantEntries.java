package io.reme.tenant;

import io.reme.json.Json;
import java.io.IOException;

/**
 * The names and record shapes of the {@code tenants} topic and its global store: {@code tenant/<tenant>}
 * holds a {@link TenantRecord}, {@code key/<id>} an {@link ApiKeyRecord}. One topic for both keeps
 * a tenant and its keys in one ordered log (one partition), so a delete and the revocations it
 * writes are seen in the order written.
 */
public final class TenantEntries {
    /** The global store every instance keeps of the topic (string keys, the records' JSON bytes). */
    public static final String STORE = "tenants-store";

    public static final String SOURCE = "tenants-source";
    public static final String UPDATER = "tenants-updater";

    public static final String TENANT_PREFIX = "tenant/";
    public static final String KEY_PREFIX = "key/";

    private TenantEntries() {}

    public static String tenantKey(String tenant) {
        return TENANT_PREFIX + tenant;
    }

    public static String apiKeyKey(String id) {
        return KEY_PREFIX + id;
    }

    public static byte[] bytes(Object record) {
        try {
            return Json.MAPPER.writeValueAsBytes(record);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a tenant record as JSON", e);
        }
    }

    /** The tenant record of these bytes; throws {@link IllegalArgumentException} when they are not one. */
    public static TenantRecord tenant(byte[] value) {
        return parse(value, TenantRecord.class);
    }

    /** The key record of these bytes; throws {@link IllegalArgumentException} when they are not one. */
    public static ApiKeyRecord apiKey(byte[] value) {
        return parse(value, ApiKeyRecord.class);
    }

    /** Whether a record under {@code key} has the shape its prefix says; the reason when not, else null. */
    public static String problem(String key, byte[] value) {
        try {
            if (key == null) {
                return "no key";
            } else if (key.startsWith(TENANT_PREFIX)) {
                TenantRecord tenant = tenant(value);
                return key.equals(tenantKey(tenant.tenant())) ? null : "key names another tenant";
            } else if (key.startsWith(KEY_PREFIX)) {
                ApiKeyRecord apiKey = apiKey(value);
                return key.equals(apiKeyKey(apiKey.id())) ? null : "key names another key id";
            }
            return "unknown key prefix";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static <T> T parse(byte[] value, Class<T> type) {
        try {
            T parsed = Json.MAPPER.readValue(value, type);
            if (parsed == null) {
                throw new IllegalArgumentException("empty " + type.getSimpleName());
            }
            return parsed;
        } catch (IOException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException arg ? arg : e;
            throw new IllegalArgumentException("not a " + type.getSimpleName() + ": " + cause.getMessage(), e);
        }
    }
}
