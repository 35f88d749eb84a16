package io.reme.tenant;

import io.reme.message.SafeId;
import java.time.Instant;
import java.util.Objects;

/**
 * One API key of a tenant (key {@code key/<id>}): never the key itself, only its SHA-256 hash
 * ({@code hash}, hex). A key is live until it is revoked or its {@code expiresAt} (null: never) passes.
 */
public record ApiKeyRecord(String id, String tenant, String hash, Instant created, Instant expiresAt, Instant revoked) {
    public ApiKeyRecord {
        SafeId.require("key id", id);
        SafeId.require("tenant", tenant);
        if (hash == null || !hash.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("key hash must be 64 hex digits");
        }
        Objects.requireNonNull(created, "created");
    }

    public boolean liveAt(Instant now) {
        return revoked == null && (expiresAt == null || now.isBefore(expiresAt));
    }

    public ApiKeyRecord revokedAt(Instant when) {
        return revoked != null ? this : new ApiKeyRecord(id, tenant, hash, created, expiresAt, when);
    }
}
