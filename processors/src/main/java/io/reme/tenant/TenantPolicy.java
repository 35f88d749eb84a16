package io.reme.tenant;

/**
 * What a tenant may use, per instance: HTTP requests per second and messages per second (through
 * {@code POST /v1/messages}). Null means unlimited. Kept small on purpose: only what is enforced is
 * accepted, so a stored policy never promises a limit nobody applies.
 */
public record TenantPolicy(Double requestsPerSecond, Double messagesPerSecond) {
    public static final TenantPolicy NONE = new TenantPolicy(null, null);

    public TenantPolicy {
        positive("requestsPerSecond", requestsPerSecond);
        positive("messagesPerSecond", messagesPerSecond);
    }

    private static void positive(String name, Double value) {
        if (value != null && !(value > 0 && value <= 1_000_000)) {
            throw new IllegalArgumentException(name + " must be a number above 0 and at most 1000000");
        }
    }
}
