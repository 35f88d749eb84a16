package io.reme.context;

/**
 * How far a plan may go beyond the planner's basic rules: when a tool call without its result stops
 * pinning the window, and how many tokens one compaction may take.
 *
 * @param orphanCallTurns a call still without its result once this many turns have started after it
 *     is unanswered for good: it no longer caps the cut and may be compacted
 * @param orphanCallTokens the same, once this many tokens have followed the call
 * @param maxSpanTokens most tokens the compacted part may have; the smallest allowed cut is taken
 *     even when it alone is larger, so a plan always makes progress
 */
public record PlanLimits(int orphanCallTurns, long orphanCallTokens, long maxSpanTokens) {

    /** No limit: calls in flight pin the window however old they are, and spans are unbounded. */
    public static final PlanLimits NONE = new PlanLimits(Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);

    public PlanLimits {
        if (orphanCallTurns < 1 || orphanCallTokens < 1 || maxSpanTokens < 1) {
            throw new IllegalArgumentException("orphanCallTurns, orphanCallTokens and maxSpanTokens must be >= 1, got "
                    + orphanCallTurns + ", " + orphanCallTokens + " and " + maxSpanTokens);
        }
    }

    /**
     * The policy's limits for a window whose summary has {@code summaryTokens}, with the span capped at
     * {@code spanLimit} tokens too when it is positive.
     */
    public static PlanLimits of(ContextPolicy policy, long summaryTokens, long spanLimit) {
        long span = policy.maxSpanTokens(summaryTokens);
        if (spanLimit > 0) {
            span = Math.min(span, spanLimit);
        }
        return new PlanLimits(policy.orphanCallTurns(), policy.orphanCallTokens(), span);
    }
}
