package io.reme.api.tenant;

import java.util.function.LongSupplier;

/** What the API needs of tenants: who a key is ({@code directory}), the admin API and the quotas. */
public record TenantSetup(TenantDirectory directory, TenantAdmin admin, TenantQuotas quotas) {
    /** The static keys only: no store, no admin API, no quotas. */
    public static TenantSetup staticOnly(ApiKeys keys) {
        TenantDirectory directory = TenantDirectory.staticOnly(keys);
        LongSupplier clock = System::nanoTime;
        return new TenantSetup(directory, TenantAdmin.disabled(directory), new TenantQuotas(directory, null, clock));
    }
}
