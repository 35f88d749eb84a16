package io.reme.session;

import io.reme.context.ContextPolicy;
import io.reme.llm.RequestSecret;
import io.reme.message.TimeBounds;
import io.reme.tenant.TenantPolicy;
import io.reme.toolresult.TruncationLimits;
import java.time.Duration;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the session processors need to decide: context policy (with per-tenant overrides),
 * tool-output limits, summary language, failure backoff, how long a request may stay pending, the
 * zone that dates the conversation, the input size limit, when a session counts as idle and how long
 * a quiet session's state is kept before it expires, the secret request IDs are derived with, how
 * far back message IDs are remembered to drop retries, how failed diary spans are retried, and the
 * times a message may carry.
 * {@link #defaults()} has a random secret.
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
        Duration retention,
        RequestSecret requestSecret,
        DedupWindow dedup,
        DiaryRetry diaryRetry,
        TimeBounds timeBounds) {

    /**
     * How a span whose diary update or memory extraction FAILED is sent again: after {@code backoff},
     * doubling with each failure up to {@code maxBackoff}; after {@code maxFailures} failures it is
     * dead-lettered instead.
     */
    public record DiaryRetry(Duration backoff, Duration maxBackoff, int maxFailures) {
        public DiaryRetry {
            if (backoff.isNegative() || maxBackoff.compareTo(backoff) < 0 || maxFailures < 1) {
                throw new IllegalArgumentException(
                        "diary retry needs backoff >= 0, maxBackoff >= backoff and " + "maxFailures >= 1");
            }
        }

        public static DiaryRetry defaults() {
            return new DiaryRetry(Duration.ofMinutes(1), Duration.ofHours(1), 10);
        }

        /** The wait after the {@code failures}-th failure. */
        public Duration after(int failures) {
            Duration wait = backoff;
            for (int i = 1; i < failures && wait.compareTo(maxBackoff) < 0; i++) {
                wait = wait.multipliedBy(2);
            }
            return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
        }
    }

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
            throw new IllegalArgumentException(
                    "retention (" + retention + ") must be longer than idleAfter (" + idleAfter + ")");
        }
        Objects.requireNonNull(diaryRetry, "diaryRetry");
        if (maxMessageBytes <= 0 || maxSummaryTokens <= 0) {
            throw new IllegalArgumentException("maxMessageBytes and maxSummaryTokens must be positive");
        }
        Objects.requireNonNull(requestSecret, "requestSecret");
        Objects.requireNonNull(dedup, "dedup");
        Objects.requireNonNull(timeBounds, "timeBounds");
    }

    public static SessionSettings defaults() {
        return new SessionSettings(
                ContextPolicy.defaults(),
                Map.of(),
                TruncationLimits.defaults(),
                "en",
                Duration.ofMinutes(1),
                Duration.ofMinutes(15),
                ZoneId.of("UTC"),
                4 * 1024 * 1024,
                4000,
                Duration.ofMinutes(30),
                Duration.ofDays(30),
                RequestSecret.random(),
                DedupWindow.defaults(),
                DiaryRetry.defaults(),
                TimeBounds.DEFAULT);
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

    /**
     * The settings {@code tenant}'s sessions run under when its stored policy lays {@code policy} over
     * these: its context window (each field set replaces the one of {@link #policyFor}), idle period and
     * retention. The one place a tenant's session settings are checked as a whole: the constructors of
     * {@link ContextPolicy} and of these settings refuse a window whose reserve leaves no room, or a
     * retention not longer than the idle period.
     *
     * @return these settings when the policy sets nothing about sessions
     * @throws IllegalArgumentException when the policy does not hold together with these settings
     */
    public SessionSettings forTenant(String tenant, TenantPolicy policy) {
        if (policy == null || !policy.setsSession()) {
            return this;
        }
        ContextPolicy base = policyFor(tenant);
        ContextPolicy window =
                policy.maxInputLength() == null && policy.compactRatio() == null && policy.reserve() == null
                        ? base
                        : new ContextPolicy(
                                policy.maxInputLength() != null ? policy.maxInputLength() : base.maxInputLength(),
                                policy.compactRatio() != null ? policy.compactRatio() : base.compactRatio(),
                                policy.reserve() != null ? policy.reserve() : base.reserve(),
                                base.reservedTokens(),
                                base.orphanCallTurns(),
                                base.orphanCallTokens(),
                                base.maxSpanShare());
        Map<String, ContextPolicy> policies = new HashMap<>(tenantPolicies);
        policies.put(tenant, window);
        return new SessionSettings(
                defaultPolicy,
                policies,
                truncation,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                policy.idleAfter() != null ? policy.idleAfter() : idleAfter,
                policy.retention() != null ? policy.retention() : retention,
                requestSecret,
                dedup,
                diaryRetry,
                timeBounds);
    }

    public SessionSettings withDefaultPolicy(ContextPolicy policy) {
        return new SessionSettings(
                policy,
                tenantPolicies,
                truncation,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                requestSecret,
                dedup,
                diaryRetry,
                timeBounds);
    }

    public SessionSettings withTenantPolicies(Map<String, ContextPolicy> policies) {
        return new SessionSettings(
                defaultPolicy,
                policies,
                truncation,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                requestSecret,
                dedup,
                diaryRetry,
                timeBounds);
    }

    public SessionSettings withTruncation(TruncationLimits limits) {
        return new SessionSettings(
                defaultPolicy,
                tenantPolicies,
                limits,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                requestSecret,
                dedup,
                diaryRetry,
                timeBounds);
    }

    /** The deployment's secret, which the session's request IDs are derived with. */
    public SessionSettings withRequestSecret(RequestSecret secret) {
        return new SessionSettings(
                defaultPolicy,
                tenantPolicies,
                truncation,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                secret,
                dedup,
                diaryRetry,
                timeBounds);
    }

    public SessionSettings withDedup(DedupWindow window) {
        return new SessionSettings(
                defaultPolicy,
                tenantPolicies,
                truncation,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                requestSecret,
                window,
                diaryRetry,
                timeBounds);
    }

    public SessionSettings withTiming(Duration backoff, Duration timeout) {
        return new SessionSettings(
                defaultPolicy,
                tenantPolicies,
                truncation,
                language,
                backoff,
                timeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                requestSecret,
                dedup,
                diaryRetry,
                timeBounds);
    }

    public SessionSettings withDiaryRetry(DiaryRetry retry) {
        return new SessionSettings(
                defaultPolicy,
                tenantPolicies,
                truncation,
                language,
                retryBackoff,
                pendingTimeout,
                zone,
                maxMessageBytes,
                maxSummaryTokens,
                idleAfter,
                retention,
                requestSecret,
                dedup,
                retry,
                timeBounds);
    }
}
