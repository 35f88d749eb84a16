package io.reme.context;

/**
 * Where to split a conversation window: its oldest {@code compactCount} entries go into the
 * summary and the rest stay verbatim.
 *
 * @param compactCount how many entries, counted from the oldest, to compact; at least one
 * @param lastCompactedSeq seq of the newest compacted entry
 * @param compactedTokens tokens of the compacted entries
 * @param keptTokens tokens of the kept entries
 * @param overBudget true when no allowed split kept the newest part within the keep budget, so
 *     this one keeps more than asked for
 */
public record Cut(int compactCount, long lastCompactedSeq, long compactedTokens, long keptTokens, boolean overBudget) {

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
    }
}
