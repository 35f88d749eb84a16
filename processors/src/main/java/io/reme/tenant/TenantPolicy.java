package io.reme.tenant;

/**
 * What a tenant may use, per instance: HTTP requests per second, messages per second (through
 * {@code POST /v1/messages}) and LLM requests in an instance's worker pool at once. Null means
 * unlimited. Kept small on purpose: only what is enforced is accepted, so a stored policy never
 * promises a limit nobody applies.
 */
public record TenantPolicy(Double requestsPerSecond, Double messagesPerSecond, Integer llmConcurrency) {
    public static final TenantPolicy NONE = new TenantPolicy(null, null, null);

    public TenantPolicy {
        positive("requestsPerSecond", requestsPerSecond);
        positive("messagesPerSecond", messagesPerSecond);
        if (llmConcurrency != null && llmConcurrency < 1) {
            throw new IllegalArgumentException("llmConcurrency must be at least 1");
        }
    }

    private static void positive(String name, Double value) {
        if (value != null && !(value > 0 && value <= 1_000_000)) {
            throw new IllegalArgumentException(name + " must be a number above 0 and at most 1000000");
        }
    }
}
