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
 * Everything the session processors need to decide, in parts that are checked on their own: the
 * context windows (with per-tenant overrides), tool-output limits, how compactions are asked for,
 * when a session counts as idle and when it expires, what an incoming message is held to, the secret
 * request IDs are derived with, and how failed diary spans are retried. {@link #defaults()} has a
 * random secret.
 */
public record SessionSettings(
        Windows windows,
        TruncationLimits truncation,
        Compacting compacting,
        Lifetime lifetime,
        Input input,
        RequestSecret requestSecret,
        DiaryRetry diaryRetry) {

    /** The context policy of every tenant, and of those whose configuration overrides it. */
    public record Windows(ContextPolicy defaultPolicy, Map<String, ContextPolicy> tenantPolicies) {
        public Windows {
            Objects.requireNonNull(defaultPolicy, "defaultPolicy");
            tenantPolicies = Map.copyOf(tenantPolicies);
        }
    }

    /**
     * How a compaction is asked for: the summary's language and most tokens, the wait after a failed
     * one, and how long a request may stay pending before it is abandoned.
     */
    public record Compacting(String language, int maxSummaryTokens, Duration retryBackoff, Duration pendingTimeout) {
        public Compacting {
            Objects.requireNonNull(language, "language");
            if (maxSummaryTokens <= 0) {
                throw new IllegalArgumentException("maxSummaryTokens must be positive");
            }
            if (retryBackoff.isNegative() || pendingTimeout.isNegative() || pendingTimeout.isZero()) {
                throw new IllegalArgumentException("retryBackoff must be >= 0 and pendingTimeout > 0");
            }
        }
    }

    /**
     * When a quiet session gets a diary update for what no diary covered ({@code idleAfter}), and when its
     * state is deleted ({@code retention}, longer).
     */
    public record Lifetime(Duration idleAfter, Duration retention) {
        public Lifetime {
            if (idleAfter.isNegative() || idleAfter.isZero()) {
                throw new IllegalArgumentException("idleAfter must be > 0");
            }
            if (retention.compareTo(idleAfter) <= 0) {
                throw new IllegalArgumentException(
                        "retention (" + retention + ") must be longer than idleAfter (" + idleAfter + ")");
            }
        }
    }

    /**
     * What an incoming message is held to: its size, the times it may carry, how far back its ID is
     * remembered to drop retries; and the zone that dates the conversation (the archive's days).
     */
    public record Input(int maxMessageBytes, TimeBounds timeBounds, DedupWindow dedup, ZoneId zone) {
        public Input {
            if (maxMessageBytes <= 0) {
                throw new IllegalArgumentException("maxMessageBytes must be positive");
            }
            Objects.requireNonNull(timeBounds, "timeBounds");
            Objects.requireNonNull(dedup, "dedup");
            Objects.requireNonNull(zone, "zone");
        }
    }

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
        Objects.requireNonNull(windows, "windows");
        Objects.requireNonNull(truncation, "truncation");
        Objects.requireNonNull(compacting, "compacting");
        Objects.requireNonNull(lifetime, "lifetime");
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(requestSecret, "requestSecret");
        Objects.requireNonNull(diaryRetry, "diaryRetry");
    }

    public static SessionSettings defaults() {
        return new SessionSettings(
                new Windows(ContextPolicy.defaults(), Map.of()),
                TruncationLimits.defaults(),
                new Compacting("en", 4000, Duration.ofMinutes(1), Duration.ofMinutes(15)),
                new Lifetime(Duration.ofMinutes(30), Duration.ofDays(30)),
                new Input(4 * 1024 * 1024, TimeBounds.DEFAULT, DedupWindow.defaults(), ZoneId.of("UTC")),
                RequestSecret.random(),
                DiaryRetry.defaults());
    }

    public ContextPolicy policyFor(String tenant) {
        return windows.tenantPolicies().getOrDefault(tenant, windows.defaultPolicy());
    }

    /**
     * Tokens a summary of {@code tenant}'s sessions may take: the configured maximum, or less when the
     * tenant's window leaves less room ({@link ContextPolicy#summaryBudget()}).
     */
    public int summaryBudget(String tenant) {
        return (int) Math.min(compacting.maxSummaryTokens(), policyFor(tenant).summaryBudget());
    }

    /**
     * The settings {@code tenant}'s sessions run under when its stored policy lays {@code policy} over
     * these: its context window (each field set replaces the one of {@link #policyFor}), idle period and
     * retention. The one place a tenant's session settings are checked as a whole: the constructors of
     * {@link ContextPolicy} and of {@link Lifetime} refuse a window whose reserve leaves no room, or a
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
        Map<String, ContextPolicy> policies = new HashMap<>(windows.tenantPolicies());
        policies.put(tenant, window);
        Lifetime tenants = new Lifetime(
                policy.idleAfter() != null ? policy.idleAfter() : lifetime.idleAfter(),
                policy.retention() != null ? policy.retention() : lifetime.retention());
        return new SessionSettings(
                new Windows(windows.defaultPolicy(), policies),
                truncation,
                compacting,
                tenants,
                input,
                requestSecret,
                diaryRetry);
    }

    public SessionSettings withDefaultPolicy(ContextPolicy policy) {
        return withWindows(new Windows(policy, windows.tenantPolicies()));
    }

    public SessionSettings withTenantPolicies(Map<String, ContextPolicy> policies) {
        return withWindows(new Windows(windows.defaultPolicy(), policies));
    }

    public SessionSettings withTruncation(TruncationLimits limits) {
        return new SessionSettings(windows, limits, compacting, lifetime, input, requestSecret, diaryRetry);
    }

    /** The deployment's secret, which the session's request IDs are derived with. */
    public SessionSettings withRequestSecret(RequestSecret secret) {
        return new SessionSettings(windows, truncation, compacting, lifetime, input, secret, diaryRetry);
    }

    public SessionSettings withDedup(DedupWindow window) {
        return withInput(new Input(input.maxMessageBytes(), input.timeBounds(), window, input.zone()));
    }

    public SessionSettings withInput(Input newInput) {
        return new SessionSettings(windows, truncation, compacting, lifetime, newInput, requestSecret, diaryRetry);
    }

    public SessionSettings withTiming(Duration backoff, Duration timeout) {
        return new SessionSettings(
                windows,
                truncation,
                new Compacting(compacting.language(), compacting.maxSummaryTokens(), backoff, timeout),
                lifetime,
                input,
                requestSecret,
                diaryRetry);
    }

    public SessionSettings withDiaryRetry(DiaryRetry retry) {
        return new SessionSettings(windows, truncation, compacting, lifetime, input, requestSecret, retry);
    }

    private SessionSettings withWindows(Windows newWindows) {
        return new SessionSettings(newWindows, truncation, compacting, lifetime, input, requestSecret, diaryRetry);
    }
}
