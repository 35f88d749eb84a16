package io.reme.context;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Token limits that decide when a conversation window must be compacted, how much of its newest
 * part to keep verbatim, how large its summary may grow and how much one compaction may take.
 *
 * <p>The summary's budget is derived from the window: half of the room between the reserve and the
 * conversation budget ({@link #summaryBudget()}). A summary within it leaves the threshold above the
 * reserve, so a compaction always frees at least the other half before the next one is due, and
 * summary plus live messages stay below {@code maxInputLength} up to the message that crosses the
 * threshold (beyond that, while a compaction is late, the context API holds the oldest messages back:
 * {@link #servedMessageBudget}). A policy whose budget could not hold even a skeleton summary is refused.
 *
 * @param maxInputLength the model's input window in tokens
 * @param compactRatio share of the input window the conversation may fill before compaction, in (0, 1]
 * @param reserve tokens of recent messages to keep verbatim after a compaction
 * @param reservedTokens tokens already spoken for outside the conversation (system prompt, tool schemas)
 * @param orphanCallTurns turns started after a tool call without its result before the call stops
 *     holding back compaction
 * @param orphanCallTokens tokens after a tool call without its result before the call stops holding
 *     back compaction (whichever of the two comes first)
 * @param maxSpanShare share of {@code maxInputLength} one compaction request's messages and previous
 *     summary may take, in (0, 1]; the rest is left for the instructions and the answer
 */
public record ContextPolicy(
        int maxInputLength,
        double compactRatio,
        int reserve,
        int reservedTokens,
        int orphanCallTurns,
        int orphanCallTokens,
        double maxSpanShare) {

    public static final int DEFAULT_MAX_INPUT_LENGTH = 131072;
    public static final double DEFAULT_COMPACT_RATIO = 0.7;
    public static final int DEFAULT_RESERVE = 10000;
    public static final int DEFAULT_RESERVED_TOKENS = 0;
    public static final int DEFAULT_ORPHAN_CALL_TURNS = 2;
    public static final int DEFAULT_ORPHAN_CALL_TOKENS = 16000;
    public static final double DEFAULT_MAX_SPAN_SHARE = 0.9;
    /** The smallest summary budget accepted: room for the headings and a few lines under them. */
    public static final int MIN_SUMMARY_BUDGET = 100;

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
        if (orphanCallTurns < 1 || orphanCallTokens < 1) {
            throw new IllegalArgumentException("orphanCallTurns and orphanCallTokens must be >= 1, got "
                    + orphanCallTurns + " and " + orphanCallTokens);
        }
        if (!(maxSpanShare > 0 && maxSpanShare <= 1)) {
            throw new IllegalArgumentException("maxSpanShare must be in (0, 1], got " + maxSpanShare);
        }
        long base = baseThreshold(maxInputLength, compactRatio);
        if (base - reservedTokens <= reserve) {
            throw new IllegalArgumentException("baseThreshold (" + base + " = floor(maxInputLength " + maxInputLength
                    + " x compactRatio " + compactRatio + " x 0.95)) minus reservedTokens (" + reservedTokens
                    + ") must exceed reserve (" + reserve + "), otherwise nothing but the reserve would ever fit");
        }
        long summaryBudget = (base - reservedTokens - reserve) / 2;
        if (summaryBudget < MIN_SUMMARY_BUDGET) {
            throw new IllegalArgumentException("the summary budget (" + summaryBudget + " = (baseThreshold " + base
                    + " - reservedTokens " + reservedTokens + " - reserve " + reserve + ") / 2) must be at least "
                    + MIN_SUMMARY_BUDGET + " tokens, otherwise no summary fits beside the window; raise "
                    + "maxInputLength or compactRatio, or lower reserve or reservedTokens");
        }
    }

    /** A policy with the default orphan-call and span limits. */
    public ContextPolicy(int maxInputLength, double compactRatio, int reserve, int reservedTokens) {
        this(
                maxInputLength,
                compactRatio,
                reserve,
                reservedTokens,
                DEFAULT_ORPHAN_CALL_TURNS,
                DEFAULT_ORPHAN_CALL_TOKENS,
                DEFAULT_MAX_SPAN_SHARE);
    }

    /** The policy with every default value. */
    public static ContextPolicy defaults() {
        return new ContextPolicy(
                DEFAULT_MAX_INPUT_LENGTH, DEFAULT_COMPACT_RATIO, DEFAULT_RESERVE, DEFAULT_RESERVED_TOKENS);
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
     * Tokens the summary may take: half of what the conversation budget leaves above the reserve. With
     * a summary this size the threshold is still the reserve plus the other half, so the summary never
     * pushes it to the reserve or below and a compaction is never due on every turn.
     */
    public long summaryBudget() {
        return (baseThreshold() - reservedTokens - reserve) / 2;
    }

    /**
     * Tokens the live messages may have in a served context beside a summary of {@code summaryTokens}:
     * whatever {@code maxInputLength} leaves after the reserved tokens and the summary, never negative.
     */
    public long servedMessageBudget(long summaryTokens) {
        requireNonNegative(summaryTokens, "summaryTokens");
        return Math.max(0, maxInputLength - (long) reservedTokens - summaryTokens);
    }

    /**
     * Most tokens of messages one compaction request may carry beside a previous summary of
     * {@code summaryTokens}: floor(maxInputLength x maxSpanShare) less the summary, which goes into the
     * same prompt; at least 1.
     */
    public long maxSpanTokens(long summaryTokens) {
        requireNonNegative(summaryTokens, "summaryTokens");
        long share = BigDecimal.valueOf(maxInputLength)
                .multiply(BigDecimal.valueOf(maxSpanShare))
                .setScale(0, RoundingMode.FLOOR)
                .longValueExact();
        return Math.max(1, share - summaryTokens);
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
