package io.reme.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ContextPolicyTest {

    @Test
    void defaultsMatchTheDocumentedValues() {
        ContextPolicy policy = ContextPolicy.defaults();
        assertEquals(131072, policy.maxInputLength());
        assertEquals(0.7, policy.compactRatio());
        assertEquals(10000, policy.reserve());
        assertEquals(0, policy.reservedTokens());
    }

    @Test
    void defaultBaseThresholdIs87162() {
        assertEquals(87162, ContextPolicy.defaults().baseThreshold());
        assertEquals(87162, ContextPolicy.defaults().threshold(0));
    }

    @Test
    void baseThresholdFloorsWithoutFloatingPointDrift() {
        // 1400 x 0.7 x 0.95 is exactly 931; the double product 1400 * 0.7 * 0.95 is 930.999...,
        // which a plain floor would turn into 930.
        assertEquals(931, new ContextPolicy(1400, 0.7, 10, 0).baseThreshold());
        assertEquals(930, new ContextPolicy(1399, 0.7, 10, 0).baseThreshold());
        assertEquals(
                Math.floorDiv(Integer.MAX_VALUE * 95L, 100),
                new ContextPolicy(Integer.MAX_VALUE, 1.0, 0, 0).baseThreshold());
    }

    @Test
    void thresholdSubtractsReservedAndSummaryTokensAndMayGoNegative() {
        ContextPolicy policy = new ContextPolicy(131072, 0.7, 10000, 2000);
        assertEquals(85162, policy.threshold(0));
        assertEquals(80162, policy.threshold(5000));
        assertEquals(0, policy.threshold(85162));
        assertEquals(-14838, policy.threshold(100000));
        assertThrows(IllegalArgumentException.class, () -> policy.threshold(-1));
    }

    @Test
    void strictlyBelowTheThresholdDoesNotCompact() {
        ContextPolicy policy = ContextPolicy.defaults();
        assertFalse(policy.overThreshold(87161, 0));
        assertTrue(policy.overThreshold(87162, 0));
        assertFalse(policy.overThreshold(77161, 10000));
        assertTrue(policy.overThreshold(77162, 10000));
        // A summary that fills the budget alone makes any message count compact.
        assertTrue(policy.overThreshold(0, 87162));
        assertThrows(IllegalArgumentException.class, () -> policy.overThreshold(-1, 0));
    }

    @Test
    void keepBudgetIsTheReserveWhileTheThresholdExceedsIt() {
        ContextPolicy policy = ContextPolicy.defaults();
        assertEquals(10000, policy.keepBudget(0));
        assertEquals(10000, policy.keepBudget(77161)); // threshold 10001
    }

    @Test
    void keepBudgetShrinksToHalfTheThresholdOnceTheSummaryCrowdsTheReserve() {
        ContextPolicy policy = ContextPolicy.defaults();
        assertEquals(5000, policy.keepBudget(77162)); // threshold 10000
        assertEquals(4999, policy.keepBudget(77164)); // threshold 9998
        assertEquals(0, policy.keepBudget(87161)); // threshold 1
        assertEquals(0, policy.keepBudget(87162)); // threshold 0
        assertEquals(0, policy.keepBudget(1_000_000)); // threshold negative
        assertEquals(0, policy.keepBudget(Long.MAX_VALUE));
    }

    @Test
    void keepBudgetWithZeroReserveIsZero() {
        ContextPolicy policy = new ContextPolicy(1000, 1.0, 0, 0);
        assertEquals(0, policy.keepBudget(0));
        assertEquals(0, policy.keepBudget(5000));
    }

    @Test
    void rejectsOutOfRangeValues() {
        assertRejected(() -> new ContextPolicy(0, 0.7, 10, 0), "maxInputLength", "0");
        assertRejected(() -> new ContextPolicy(-5, 0.7, 10, 0), "maxInputLength", "-5");
        assertRejected(() -> new ContextPolicy(131072, 0.0, 10, 0), "compactRatio", "0.0");
        assertRejected(() -> new ContextPolicy(131072, -0.1, 10, 0), "compactRatio", "-0.1");
        assertRejected(() -> new ContextPolicy(131072, 1.01, 10, 0), "compactRatio", "1.01");
        assertRejected(() -> new ContextPolicy(131072, Double.NaN, 10, 0), "compactRatio", "NaN");
        assertRejected(() -> new ContextPolicy(131072, 0.7, -1, 0), "reserve", "-1");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10, -1), "reservedTokens", "-1");
    }

    @Test
    void acceptsTheEdgesOfTheRanges() {
        assertEquals(950, new ContextPolicy(1000, 1.0, 0, 0).baseThreshold());
        // The smallest room a summary budget of 100 fits in: 87162 - 86962 = 200.
        assertEquals(87162, new ContextPolicy(131072, 0.7, 0, 86962).baseThreshold());
        assertEquals(200, new ContextPolicy(131072, 0.7, 0, 86962).threshold(0));
        assertEquals(100, new ContextPolicy(131072, 0.7, 0, 86962).summaryBudget());
        assertEquals(131072, new ContextPolicy(131072, 0.7, 0, 0, 1, 1, 1.0).maxSpanTokens(0));
    }

    @Test
    void refusesAWindowWithoutRoomForASummary() {
        // Room above the reserve 87162 - 77161 - 10000 = 1: the reserve fits, a summary does not.
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10000, 77161), "summary budget", "0", "100");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 0, 87161), "summary budget");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 0, 86963), "summary budget", "99");
    }

    @Test
    void theSummaryBudgetIsHalfTheRoomAboveTheReserve() {
        assertEquals((87162 - 10000) / 2, ContextPolicy.defaults().summaryBudget());
        // The small window of the demo: floor(3000 x 0.7 x 0.95) = 1995, (1995 - 500) / 2 = 747.
        assertEquals(747, new ContextPolicy(3000, 0.7, 500, 0).summaryBudget());
        // floor(131072 x 0.9) = 117964 for the span and the previous summary together.
        assertEquals(117964, ContextPolicy.defaults().maxSpanTokens(0));
        assertEquals(113964, ContextPolicy.defaults().maxSpanTokens(4000));
    }

    @Test
    void rejectsOutOfRangeLimits() {
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10, 0, 0, 10, 0.5), "orphanCallTurns");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10, 0, 1, 0, 0.5), "orphanCallTokens");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10, 0, 1, 10, 0.0), "maxSpanShare");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10, 0, 1, 10, 1.5), "maxSpanShare");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 10, 0, 1, 10, Double.NaN), "maxSpanShare");
    }

    /**
     * Over a grid of accepted policies: a summary within its budget leaves the threshold above the
     * reserve (so a compaction frees room and is not due again on the next turn), and summary plus
     * a window just under the threshold, plus the reserved tokens, stays under maxInputLength.
     */
    @Test
    void everyAcceptedPolicyHoldsItsSummaryAndWindowWithinTheInput() {
        int accepted = 0;
        int[] inputs = {1, 150, 400, 1000, 3000, 4000, 8192, 32768, 131072, 1_000_000, Integer.MAX_VALUE};
        double[] ratios = {0.05, 0.3, 0.5, 0.7, 0.9, 1.0};
        int[] reserves = {0, 10, 200, 500, 2000, 10000, 100000};
        int[] reservations = {0, 50, 1000, 20000};
        for (int input : inputs) {
            for (double ratio : ratios) {
                for (int reserve : reserves) {
                    for (int reserved : reservations) {
                        ContextPolicy policy;
                        try {
                            policy = new ContextPolicy(input, ratio, reserve, reserved);
                        } catch (IllegalArgumentException refused) {
                            continue;
                        }
                        accepted++;
                        String at = input + "/" + ratio + "/" + reserve + "/" + reserved;
                        long budget = policy.summaryBudget();
                        assertTrue(budget >= ContextPolicy.MIN_SUMMARY_BUDGET, at);
                        for (long summary : new long[] {0, budget / 2, budget}) {
                            long threshold = policy.threshold(summary);
                            assertTrue(threshold > reserve, at + " summary " + summary);
                            assertTrue(threshold - reserve >= budget, at + " summary " + summary);
                            assertEquals(reserve, policy.keepBudget(summary), at);
                            // The largest window that does not yet compact, beside the summary.
                            long served = summary + threshold - 1 + reserved;
                            assertTrue(served < input, at + " serves " + served);
                            assertTrue(threshold - 1 <= policy.servedMessageBudget(summary), at);
                        }
                    }
                }
            }
        }
        assertTrue(accepted > 100, "accepted " + accepted);
    }

    @Test
    void rejectsAReserveThatLeavesNoRoomAboveIt() {
        // 87162 - 77162 = 10000, not more than the reserve of 10000.
        IllegalArgumentException e =
                assertRejected(() -> new ContextPolicy(131072, 0.7, 10000, 77162), "87162", "77162", "10000");
        assertTrue(e.getMessage().contains("reserve"), e.getMessage());
        assertEquals(10200, new ContextPolicy(131072, 0.7, 10000, 76962).threshold(0));
        assertRejected(() -> new ContextPolicy(1000, 0.5, 475, 0), "475");
        assertRejected(() -> new ContextPolicy(131072, 0.7, 0, 87162), "87162");
        assertRejected(() -> new ContextPolicy(1, 0.5, 0, 0), "baseThreshold");
    }

    private static IllegalArgumentException assertRejected(Runnable construction, String... mentioned) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construction::run);
        for (String text : mentioned) {
            assertTrue(e.getMessage().contains(text), () -> "expected '" + text + "' in: " + e.getMessage());
        }
        return e;
    }
}
