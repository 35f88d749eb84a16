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
        assertEquals(Math.floorDiv(Integer.MAX_VALUE * 95L, 100),
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
        assertEquals(87162, new ContextPolicy(131072, 0.7, 0, 87161).baseThreshold());
        assertEquals(1, new ContextPolicy(131072, 0.7, 0, 87161).threshold(0));
    }

    @Test
    void rejectsAReserveThatLeavesNoRoomAboveIt() {
        // 87162 - 77162 = 10000, not more than the reserve of 10000.
        IllegalArgumentException e = assertRejected(
                () -> new ContextPolicy(131072, 0.7, 10000, 77162), "87162", "77162", "10000");
        assertTrue(e.getMessage().contains("reserve"), e.getMessage());
        assertEquals(10001, new ContextPolicy(131072, 0.7, 10000, 77161).threshold(0));
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
