/**
 * Tenants as the API sees them: who a key is ({@link io.reme.api.tenant.TenantDirectory}: static keys,
 * issued keys, instances' own keys), the admin API ({@link io.reme.api.tenant.TenantAdmin}) and the
 * per-tenant quotas ({@link io.reme.api.tenant.TenantQuotas}).
 */
package io.reme.api.tenant;
