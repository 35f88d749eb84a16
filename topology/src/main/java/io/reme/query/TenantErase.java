package io.reme.query;

/** The body of {@code DELETE /v1/tenant}: {@code {"confirm": "<tenant>"}}, checked by {@link UserErasure}. */
record TenantErase(String confirm) implements RequestBody {
    static final String INVALID = "confirmation_required";
}
