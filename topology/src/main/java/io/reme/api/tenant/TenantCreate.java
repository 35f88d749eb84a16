package io.reme.api.tenant;

import io.reme.api.ApiException;
import io.reme.api.RequestBody;
import io.reme.message.SafeId;
import io.reme.tenant.TenantStatus;
import java.util.Locale;

/** The body of {@code POST /v1/admin/tenants}: a tenant's name and, optionally, its status. */
public record TenantCreate(String tenant, String status) implements RequestBody {
    public static final String INVALID = "invalid_tenant";

    @Override
    public void validate() {
        String problem = SafeId.problem("tenant", tenant);
        if (problem != null) {
            throw new ApiException(400, INVALID, problem);
        }
        statusOrNull();
    }

    /** The status asked for; null when the body leaves it as it is (enabled for a new tenant). */
    TenantStatus statusOrNull() {
        if (status == null) {
            return null;
        }
        String text = status.toLowerCase(Locale.ROOT);
        if (text.equals("enabled") || text.equals("disabled")) {
            return TenantStatus.valueOf(text.toUpperCase(Locale.ROOT));
        }
        throw new ApiException(400, "invalid_status", "status must be 'enabled' or 'disabled'");
    }
}
