package io.reme.tenant;

import io.reme.message.SafeId;
import java.time.Instant;
import java.util.Objects;

/** A tenant as the topic of tenants holds it (key {@code tenant/<tenant>}). */
public record TenantRecord(String tenant, TenantStatus status, Instant created, TenantPolicy policy) {
    public TenantRecord {
        SafeId.require("tenant", tenant);
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(created, "created");
        policy = policy == null ? TenantPolicy.NONE : policy;
    }

    public TenantRecord withStatus(TenantStatus next) {
        return new TenantRecord(tenant, next, created, policy);
    }

    public TenantRecord withPolicy(TenantPolicy next) {
        return new TenantRecord(tenant, status, created, next);
    }
}
