package io.reme.api;

/** Callers as the API's authentication would settle them, for tests that call a service directly. */
public final class Callers {
    /** A tenant's caller with the key {@code "Bearer k"}. */
    public static final Caller ACME = tenant("acme", "Bearer k");

    private Callers() {}

    public static Caller tenant(String tenant, String authorization) {
        return new Caller(tenant, "static", false, new Caller.Credential(authorization));
    }
}
