package io.reme.context;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Token limits that decide when a conversation window must be compacted and how much of its
 * newest part to keep verbatim.
 *
 * @param maxInputLength the model's input window in tokens
 * @param compactRatio share of the input window the conversation may fill before compaction, in (0, 1]
 * @param reserve tokens of recent messages to keep verbatim after a compaction
 * @param reservedTokens tokens already spoken for outside the conversation (system prompt, tool schemas)
 */
public record ContextPolicy(int maxInputLength, double compactRatio, int reserve, int reservedTokens) {

    public static final int DEFAULT_MAX_INPUT_LENGTH = 131072;
    public static final double DEFAULT_COMPACT_RATIO = 0.7;
    public static final int DEFAULT_RESERVE = 10000;
    public static final int DEFAULT_RESERVED_TOKENS = 0;

    // Token counts are estimates; staying 5% below the nominal limit absorbs their error.
    private static final BigDecimal SAFETY_FACTOR = new BigDecimal("0.95");

    public ContextPolicy {
        if (maxInputLength <= 0) {
            throw new IllegalArgumentException("maxInputLength must be > 0, got " + maxInputLength);
        }
        // The negated form also rejects NaN.
        if (!(compactRatio > 0 && compactRatio <= 1)) {
            throw new IllegalArgumentException("compactRatio must be in (0, 1], got " + compactRatio);
        }
        if (reserve < 0) {
            throw new IllegalArgumentException("reserve must be >= 0, got " + reserve);
        }
        if (reservedTokens < 0) {
            throw new IllegalArgumentException("reservedTokens must be >= 0, got " + reservedTokens);
        }
        long base = baseThreshold(maxInputLength, compactRatio);
        if (base - reservedTokens <= reserve) {
            throw new IllegalArgumentException("baseThreshold (" + base + " = floor(maxInputLength " + maxInputLength
                    + " x compactRatio " + compactRatio + " x 0.95)) minus reservedTokens (" + reservedTokens
                    + ") must exceed reserve (" + reserve + "), otherwise nothing but the reserve would ever fit");
        }
    }

    /** The policy with every default value. */
    public static ContextPolicy defaults() {
        return new ContextPolicy(DEFAULT_MAX_INPUT_LENGTH, DEFAULT_COMPACT_RATIO, DEFAULT_RESERVE, DEFAULT_RESERVED_TOKENS);
    }

    /** floor(maxInputLength × compactRatio × 0.95): the conversation budget before reservations. */
    public long baseThreshold() {
        return baseThreshold(maxInputLength, compactRatio);
    }

    /**
     * Tokens the messages may reach before compaction, once the reserved tokens and the current
     * summary are accounted for; zero or negative when the summary alone fills the budget.
     */
    public long threshold(long summaryTokens) {
        requireNonNegative(summaryTokens, "summaryTokens");
        return baseThreshold() - reservedTokens - summaryTokens;
    }

    /** True when the messages reach the threshold; strictly below it nothing needs compacting. */
    public boolean overThreshold(long messageTokens, long summaryTokens) {
        requireNonNegative(messageTokens, "messageTokens");
        return messageTokens >= threshold(summaryTokens);
    }

    /**
     * Tokens of newest messages to keep after a compaction: the reserve, unless the summary has
     * squeezed the threshold down to the reserve or below, in which case half of what is left
     * (so the kept part never fills the whole remaining room by itself).
     */
    public long keepBudget(long summaryTokens) {
        long threshold = threshold(summaryTokens);
        if (threshold <= reserve) {
            return Math.min(reserve, Math.max(0, threshold) / 2);
        }
        return reserve;
    }

    // Decimal arithmetic so that 131072 x 0.7 x 0.95 lands on 87162 exactly, as written, rather
    // than on whatever the nearest doubles multiply out to.
    private static long baseThreshold(int maxInputLength, double compactRatio) {
        return BigDecimal.valueOf(maxInputLength)
                .multiply(BigDecimal.valueOf(compactRatio))
                .multiply(SAFETY_FACTOR)
                .setScale(0, RoundingMode.FLOOR)
                .longValueExact();
    }

    private static void requireNonNegative(long value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + value);
        }
    }
}
