package io.reme.api.erasure;

import io.reme.api.RequestBody;

/** The body of {@code DELETE /v1/tenant}: {@code {"confirm": "<tenant>"}}, checked by {@link UserErasure}. */
public record TenantErase(String confirm) implements RequestBody {
    public static final String INVALID = "confirmation_required";
}
