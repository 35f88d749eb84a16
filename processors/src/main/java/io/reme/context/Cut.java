package io.reme.context;

import java.util.Set;

/**
 * Where to split a conversation window: its oldest {@code compactCount} entries go into the
 * summary and the rest stay verbatim.
 *
 * @param compactCount how many entries, counted from the oldest, to compact; at least one
 * @param lastCompactedSeq seq of the newest compacted entry
 * @param compactedTokens tokens of the compacted entries
 * @param keptTokens tokens of the kept entries
 * @param overBudget true when no allowed split within the span limit kept the newest part within
 *     the keep budget, so this one keeps more than asked for (another compaction can follow it)
 * @param unansweredCalls ids of tool calls in the compacted part whose results never came and that
 *     were old enough to be compacted without them
 */
public record Cut(
        int compactCount,
        long lastCompactedSeq,
        long compactedTokens,
        long keptTokens,
        boolean overBudget,
        Set<String> unansweredCalls) {

    public Cut {
        if (compactCount < 1) {
            throw new IllegalArgumentException("compactCount must be >= 1, got " + compactCount);
        }
        if (compactedTokens < 0) {
            throw new IllegalArgumentException("compactedTokens must be >= 0, got " + compactedTokens);
        }
        if (keptTokens < 0) {
            throw new IllegalArgumentException("keptTokens must be >= 0, got " + keptTokens);
        }
        unansweredCalls = unansweredCalls == null ? Set.of() : Set.copyOf(unansweredCalls);
    }

    /** A cut that compacts no unanswered call. */
    public Cut(int compactCount, long lastCompactedSeq, long compactedTokens, long keptTokens, boolean overBudget) {
        this(compactCount, lastCompactedSeq, compactedTokens, keptTokens, overBudget, Set.of());
    }
}
