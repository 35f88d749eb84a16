package io.reme.search;

import io.reme.message.SafeId;
import java.nio.charset.StandardCharsets;

/**
 * A memory's identity across tenants and its key form {@code tenant/id}: the key of the {@code memories} topic and
 * its pending twin, and of the index's documents. Ids are unique within a tenant only, so the tenant is always part
 * of it. An id may hold any character but the key's first slash is the tenant's end (diary chunks' ids hold colons).
 */
public record MemoryKey(String tenant, String id) {
    public MemoryKey {
        SafeId.require("tenant", tenant);
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("a memory key needs an id");
        }
    }

    /** The key of {@code memory}. */
    public static MemoryKey of(MemoryRecord memory) {
        return new MemoryKey(memory.tenant(), memory.id());
    }

    /**
     * The key {@code tenant/id} read back.
     *
     * @throws IllegalArgumentException when it has no tenant, no id or a tenant that is not a safe id
     */
    public static MemoryKey parse(String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        if (slash <= 0) {
            throw new IllegalArgumentException("memory key must be tenant/id, got '" + key + "'");
        }
        return new MemoryKey(key.substring(0, slash), key.substring(slash + 1));
    }

    public String key() {
        return tenant + "/" + id;
    }

    /** {@link #key()} as the topics carry it. */
    public byte[] bytes() {
        return key().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return key();
    }
}
