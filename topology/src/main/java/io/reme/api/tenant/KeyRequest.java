package io.reme.api.tenant;

import io.reme.api.ApiException;
import io.reme.api.RequestBody;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The body of {@code POST /v1/admin/tenants/{tenant}/keys}, which may be empty: an optional expiry. */
public record KeyRequest(String expiresAt) implements RequestBody {
    public static final String INVALID = "invalid_expiry";

    @Override
    public void validate() {
        expiry();
    }

    /** When the key stops working; null for never. Whether it is in the future is the admin's check. */
    Instant expiry() {
        if (expiresAt == null) {
            return null;
        }
        try {
            return Instant.parse(expiresAt);
        } catch (DateTimeParseException e) {
            throw new ApiException(400, INVALID, "expiresAt must be an ISO-8601 instant");
        }
    }
}
