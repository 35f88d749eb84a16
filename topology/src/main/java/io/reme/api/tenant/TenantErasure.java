package io.reme.api.tenant;

import org.slf4j.LoggerFactory;

/**
 * What happens to a deleted tenant's data. The admin API has already marked the tenant deleted and
 * revoked its keys when it calls {@link #erase}; erasing sessions, memories and files is another
 * component's job, wired here by the application.
 */
@FunctionalInterface
public interface TenantErasure {
    /** Leaves the data in place and says so; until an erasure is wired the deleted tenant's data stays. */
    TenantErasure NONE = tenant -> {
        LoggerFactory.getLogger(TenantErasure.class)
                .warn("tenant deleted but its data is not erased: no erasure is wired tenant={}", tenant);
        return "not_wired";
    };

    /**
     * Starts erasing the tenant's data; returns a short status for the admin's answer (e.g.
     * {@code started}). Must not throw for a tenant with no data.
     */
    String erase(String tenant);
}
