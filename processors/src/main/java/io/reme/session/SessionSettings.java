package io.reme.session;

import io.reme.context.ContextPolicy;
import io.reme.toolresult.TruncationLimits;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the session processors need to decide: context policy (with per-tenant overrides),
 * tool-output limits, summary language, failure backoff, how long a request may stay pending, the
 * zone that dates the conversation, the input size limit, when a session counts as idle and how long
 * a quiet session's state is kept before it expires.
 */
public record SessionSettings(
        ContextPolicy defaultPolicy,
        Map<String, ContextPolicy> tenantPolicies,
        TruncationLimits truncation,
        String language,
        Duration retryBackoff,
        Duration pendingTimeout,
        ZoneId zone,
        int maxMessageBytes,
        int maxSummaryTokens,
        Duration idleAfter,
        Duration retention) {

    public SessionSettings {
        Objects.requireNonNull(defaultPolicy, "defaultPolicy");
        tenantPolicies = Map.copyOf(tenantPolicies);
        Objects.requireNonNull(truncation, "truncation");
        Objects.requireNonNull(language, "language");
        if (retryBackoff.isNegative() || pendingTimeout.isNegative() || pendingTimeout.isZero()) {
            throw new IllegalArgumentException("retryBackoff must be >= 0 and pendingTimeout > 0");
        }
        Objects.requireNonNull(zone, "zone");
        if (idleAfter.isNegative() || idleAfter.isZero()) {
            throw new IllegalArgumentException("idleAfter must be > 0");
        }
        if (retention.compareTo(idleAfter) <= 0) {
            throw new IllegalArgumentException("retention (" + retention + ") must be longer than idleAfter ("
                    + idleAfter + ")");
        }
        if (maxMessageBytes <= 0 || maxSummaryTokens <= 0) {
            throw new IllegalArgumentException("maxMessageBytes and maxSummaryTokens must be positive");
        }
    }

    public static SessionSettings defaults() {
        return new SessionSettings(ContextPolicy.defaults(), Map.of(), TruncationLimits.defaults(), "en",
                Duration.ofMinutes(1), Duration.ofMinutes(15), ZoneId.of("UTC"), 4 * 1024 * 1024, 4000,
                Duration.ofMinutes(30), Duration.ofDays(30));
    }

    public ContextPolicy policyFor(String tenant) {
        return tenantPolicies.getOrDefault(tenant, defaultPolicy);
    }

    /**
     * Tokens a summary of {@code tenant}'s sessions may take: the configured maximum, or less when the
     * tenant's window leaves less room ({@link ContextPolicy#summaryBudget()}).
     */
    public int summaryBudget(String tenant) {
        return (int) Math.min(maxSummaryTokens, policyFor(tenant).summaryBudget());
    }

    public SessionSettings withDefaultPolicy(ContextPolicy policy) {
        return new SessionSettings(policy, tenantPolicies, truncation, language, retryBackoff, pendingTimeout, zone,
                maxMessageBytes, maxSummaryTokens, idleAfter, retention);
    }

    public SessionSettings withTenantPolicies(Map<String, ContextPolicy> policies) {
        return new SessionSettings(defaultPolicy, policies, truncation, language, retryBackoff, pendingTimeout, zone,
                maxMessageBytes, maxSummaryTokens, idleAfter, retention);
    }

    public SessionSettings withTruncation(TruncationLimits limits) {
        return new SessionSettings(defaultPolicy, tenantPolicies, limits, language, retryBackoff, pendingTimeout, zone,
                maxMessageBytes, maxSummaryTokens, idleAfter, retention);
    }

    public SessionSettings withIdleAfter(Duration idle) {
        return new SessionSettings(defaultPolicy, tenantPolicies, truncation, language, retryBackoff, pendingTimeout, zone,
                maxMessageBytes, maxSummaryTokens, idle, retention);
    }

    public SessionSettings withRetention(Duration kept) {
        return new SessionSettings(defaultPolicy, tenantPolicies, truncation, language, retryBackoff, pendingTimeout, zone,
                maxMessageBytes, maxSummaryTokens, idleAfter, kept);
    }

    public SessionSettings withTiming(Duration backoff, Duration timeout) {
        return new SessionSettings(defaultPolicy, tenantPolicies, truncation, language, backoff, timeout, zone,
                maxMessageBytes, maxSummaryTokens, idleAfter, retention);
    }
}
