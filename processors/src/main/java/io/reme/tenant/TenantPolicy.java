package io.reme.tenant;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.time.Duration;

/**
 * What a tenant may use and how its sessions run. Quotas, per instance: HTTP requests per second,
 * messages per second (through {@code POST /v1/messages}), LLM requests in an instance's worker pool
 * at once; and memories stored, over the whole tenant ({@code maxMemories}). Session settings: the
 * context window ({@code maxInputLength}, {@code compactRatio}, {@code reserve}) and when a quiet
 * session counts as idle ({@code idleAfter}) and expires ({@code retention}). Null means unlimited for
 * a quota and the instance's setting for a session setting. Kept small on purpose: only what is
 * enforced is accepted, so a stored policy never promises a limit nobody applies.
 *
 * <p>Each field is checked on its own here; whether the session settings hold together with the
 * instance's defaults they are laid over (a reserve that fits the window, a retention longer than the
 * idle period) is checked in one place, {@code SessionSettings.forTenant}.
 */
public record TenantPolicy(
        Double requestsPerSecond,
        Double messagesPerSecond,
        Integer llmConcurrency,
        Integer maxInputLength,
        Double compactRatio,
        Integer reserve,
        @JsonFormat(shape = JsonFormat.Shape.STRING) Duration idleAfter,
        @JsonFormat(shape = JsonFormat.Shape.STRING) Duration retention,
        Long maxMemories) {
    public static final TenantPolicy NONE = new TenantPolicy(null, null, null);

    /** The shortest idle period a policy may set: idle sessions are looked for every 30 seconds at most. */
    public static final Duration MIN_IDLE_AFTER = Duration.ofMinutes(1);

    public TenantPolicy {
        positive("requestsPerSecond", requestsPerSecond);
        positive("messagesPerSecond", messagesPerSecond);
        if (llmConcurrency != null && llmConcurrency < 1) {
            throw new IllegalArgumentException("llmConcurrency must be at least 1");
        }
        if (maxInputLength != null && maxInputLength < 1) {
            throw new IllegalArgumentException("maxInputLength must be at least 1");
        }
        // The negated form also refuses NaN.
        if (compactRatio != null && !(compactRatio > 0 && compactRatio <= 1)) {
            throw new IllegalArgumentException("compactRatio must be above 0 and at most 1");
        }
        if (reserve != null && reserve < 0) {
            throw new IllegalArgumentException("reserve must be at least 0");
        }
        if (idleAfter != null && idleAfter.compareTo(MIN_IDLE_AFTER) < 0) {
            throw new IllegalArgumentException("idleAfter must be at least " + MIN_IDLE_AFTER);
        }
        if (retention != null && retention.compareTo(MIN_IDLE_AFTER) <= 0) {
            throw new IllegalArgumentException("retention must be longer than " + MIN_IDLE_AFTER);
        }
        if (maxMemories != null && maxMemories < 0) {
            throw new IllegalArgumentException("maxMemories must be at least 0");
        }
    }

    /** Quotas only: requests, messages and LLM concurrency. */
    public TenantPolicy(Double requestsPerSecond, Double messagesPerSecond, Integer llmConcurrency) {
        this(requestsPerSecond, messagesPerSecond, llmConcurrency, null, null, null, null, null, null);
    }

    /** Whether the policy sets any session setting (window, idle, retention) over the instance's. */
    public boolean setsSession() {
        return maxInputLength != null
                || compactRatio != null
                || reserve != null
                || idleAfter != null
                || retention != null;
    }

    public TenantPolicy withContext(Integer maxInput, Double ratio, Integer reserveTokens) {
        return new TenantPolicy(
                requestsPerSecond,
                messagesPerSecond,
                llmConcurrency,
                maxInput,
                ratio,
                reserveTokens,
                idleAfter,
                retention,
                maxMemories);
    }

    public TenantPolicy withPeriods(Duration idle, Duration keep) {
        return new TenantPolicy(
                requestsPerSecond,
                messagesPerSecond,
                llmConcurrency,
                maxInputLength,
                compactRatio,
                reserve,
                idle,
                keep,
                maxMemories);
    }

    public TenantPolicy withMaxMemories(Long max) {
        return new TenantPolicy(
                requestsPerSecond,
                messagesPerSecond,
                llmConcurrency,
                maxInputLength,
                compactRatio,
                reserve,
                idleAfter,
                retention,
                max);
    }

    private static void positive(String name, Double value) {
        if (value != null && !(value > 0 && value <= 1_000_000)) {
            throw new IllegalArgumentException(name + " must be a number above 0 and at most 1000000");
        }
    }
}
