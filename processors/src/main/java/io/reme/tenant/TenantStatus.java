package io.reme.tenant;

/** Where a tenant stands: only an enabled tenant's keys are accepted; a deleted tenant's name is never reused. */
public enum TenantStatus {
    ENABLED,
    DISABLED,
    DELETED
}
