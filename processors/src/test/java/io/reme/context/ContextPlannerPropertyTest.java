package io.reme.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Checks the planner against a brute-force oracle on randomly generated agent conversations.
 *
 * <p>Every failure message names the seed and maxLength; {@code generate(new Random(seed), maxLength)}
 * and {@code chooseBudget} with the same {@code Random} rebuild the failing case.
 */
class ContextPlannerPropertyTest {

    private static final long BASE_SEED = 0x5EED_C0DEL;

    @Test
    void agreesWithBruteForceOnShortConversations() {
        run(BASE_SEED, 3000, 40, 3000 / 50);
    }

    @Test
    void agreesWithBruteForceOnLongConversations() {
        // Long windows nearly always hold some allowed cut (since reused ids pair call by call rather
        // than pinning everything between their first and last use); the short ones cover the rest.
        run(BASE_SEED + 1_000_000, 300, 400, 1);
    }

    private static void run(long baseSeed, int conversations, int maxLength, int minWithoutCut) {
        Tally tally = new Tally();
        for (int k = 0; k < conversations; k++) {
            long seed = baseSeed + k;
            Random rnd = new Random(seed);
            List<PlanEntry> window = generate(rnd, maxLength);
            long budget = chooseBudget(rnd, window);
            check("seed=" + seed + " maxLength=" + maxLength, window, budget, tally);
        }
        // Without these the test could pass on a generator that never reaches the interesting
        // cases: each rule must have changed the answer in a fair number of conversations.
        String counts = tally.toString();
        assertTrue(tally.empty >= minWithoutCut, "too few windows without a cut: " + counts);
        assertTrue(tally.withinBudget >= conversations / 10, "too few cuts within budget: " + counts);
        assertTrue(tally.overBudget >= conversations / 20, "too few over-budget cuts: " + counts);
        assertTrue(tally.turnStartDecisive >= conversations / 20, "turn-start rule rarely decisive: " + counts);
        assertTrue(tally.pairDecisive >= conversations / 20, "tool-pair rule rarely decisive: " + counts);
        assertTrue(tally.inFlightDecisive >= conversations / 50, "in-flight rule rarely decisive: " + counts);
        assertTrue(tally.reusedIds >= conversations / 50, "too few windows with reused ids: " + counts);
    }

    /**
     * With limits, against a brute force of their own rules: a call without its result is given up
     * once enough turns have started or tokens have followed its first use, and the compacted part
     * stays within the span limit unless the smallest allowed cut alone exceeds it.
     */
    @Test
    void agreesWithBruteForceUnderOrphanAndSpanLimits() {
        int conversations = 3000;
        int orphanDecisive = 0;
        int spanDecisive = 0;
        for (int k = 0; k < conversations; k++) {
            long seed = BASE_SEED + 2_000_000 + k;
            Random rnd = new Random(seed);
            List<PlanEntry> window = generate(rnd, 60);
            long budget = chooseBudget(rnd, window);
            long total = window.stream().mapToLong(PlanEntry::tokens).sum();
            PlanLimits limits = new PlanLimits(
                    1 + rnd.nextInt(4),
                    rnd.nextBoolean() ? Long.MAX_VALUE : 1 + rnd.nextInt(40_000),
                    rnd.nextInt(3) == 0 ? Long.MAX_VALUE : 1 + Math.floorMod(rnd.nextLong(), Math.max(1, total)));
            String context = "seed=" + seed + " budget=" + budget + " limits=" + limits + " window=" + describe(window);

            LimitsOracle oracle = new LimitsOracle(window, limits);
            Optional<Cut> actual = ContextPlanner.plan(window, budget, limits);
            Optional<Cut> expected = oracle.bestCut(budget);
            assertEquals(expected, actual, context);

            if (!expected.equals(oracle.withoutOrphans().bestCut(budget))) {
                orphanDecisive++;
            }
            LimitsOracle unboundedSpan = new LimitsOracle(
                    window, new PlanLimits(limits.orphanCallTurns(), limits.orphanCallTokens(), Long.MAX_VALUE));
            if (!expected.equals(unboundedSpan.bestCut(budget))) {
                spanDecisive++;
            }
        }
        assertTrue(orphanDecisive >= conversations / 50, "orphan rule rarely decisive: " + orphanDecisive);
        assertTrue(spanDecisive >= conversations / 20, "span limit rarely decisive: " + spanDecisive);
    }

    /** The limits' rules by brute force, over the plain rules of {@link Oracle} without the in-flight one. */
    private static final class LimitsOracle {
        private final List<PlanEntry> window;
        private final PlanLimits limits;
        private final Oracle plain;
        /** Uses of calls still in flight and not given up, and the given-up ids with their oldest use. */
        private final List<Integer> pinning = new ArrayList<>();

        private final Map<String, Integer> orphans = new HashMap<>();

        LimitsOracle(List<PlanEntry> window, PlanLimits limits) {
            this.window = window;
            this.limits = limits;
            this.plain = new Oracle(window, true, true, false);
            Pairing pairing = Pairing.of(window);
            for (int k = 0; k < pairing.openIds.size(); k++) {
                String id = pairing.openIds.get(k);
                int use = pairing.openUses.get(k);
                int turns = 0;
                long tokens = 0;
                for (int j = use + 1; j < window.size(); j++) {
                    turns += window.get(j).turnStart() ? 1 : 0;
                    tokens += window.get(j).tokens();
                }
                if (turns >= limits.orphanCallTurns() || tokens >= limits.orphanCallTokens()) {
                    orphans.merge(id, use, Math::min);
                } else {
                    pinning.add(use);
                }
            }
        }

        LimitsOracle withoutOrphans() {
            return new LimitsOracle(window, new PlanLimits(Integer.MAX_VALUE, Long.MAX_VALUE, limits.maxSpanTokens()));
        }

        Optional<Cut> bestCut(long budget) {
            List<Integer> eligible = new ArrayList<>();
            for (int c : plain.allowedCuts()) {
                if (pinning.stream().anyMatch(use -> use < c)) {
                    continue;
                }
                if (eligible.isEmpty() || plain.sum(0, c) <= limits.maxSpanTokens()) {
                    eligible.add(c);
                }
            }
            if (eligible.isEmpty()) {
                return Optional.empty();
            }
            for (int c : eligible) {
                if (plain.sum(c, window.size()) <= budget) {
                    return Optional.of(cut(c, false));
                }
            }
            return Optional.of(cut(eligible.get(eligible.size() - 1), true));
        }

        private Cut cut(int c, boolean overBudget) {
            Set<String> unanswered = new HashSet<>();
            orphans.forEach((id, first) -> {
                if (first < c) {
                    unanswered.add(id);
                }
            });
            return new Cut(
                    c, window.get(c - 1).seq(), plain.sum(0, c), plain.sum(c, window.size()), overBudget, unanswered);
        }
    }

    private static void check(String origin, List<PlanEntry> window, long budget, Tally tally) {
        String context = origin + " budget=" + budget + " window=" + describe(window);
        Oracle oracle = new Oracle(window, true, true, true);
        Optional<Integer> expected = oracle.bestCut(budget);
        Optional<Cut> actual = ContextPlanner.plan(window, budget);
        tally.record(window, budget, expected, oracle);

        if (actual.isEmpty()) {
            assertTrue(
                    expected.isEmpty(),
                    () -> "no cut returned, but cutting at index " + expected.get() + " is allowed; " + context);
            return;
        }
        Cut cut = actual.get();
        int c = cut.compactCount();
        String violation = oracle.violation(c);
        assertNull(violation, () -> "invalid cut " + cut + ": " + violation + "; " + context);

        long total = oracle.sum(0, window.size());
        assertEquals(
                window.get(c - 1).seq(), cut.lastCompactedSeq(), () -> "lastCompactedSeq of " + cut + "; " + context);
        assertEquals(
                total,
                cut.compactedTokens() + cut.keptTokens(),
                () -> "tokens do not add up to " + total + " in " + cut + "; " + context);
        // With the sum checked, a right keptTokens implies a right compactedTokens.
        assertEquals(oracle.sum(c, window.size()), cut.keptTokens(), () -> "keptTokens of " + cut + "; " + context);

        if (cut.overBudget()) {
            // The chosen cut is among the allowed ones, so this also rejects a flag on a cut that fits.
            for (int a : oracle.allowedCuts()) {
                long kept = oracle.sum(a, window.size());
                assertTrue(
                        kept > budget,
                        () -> "marked over budget although cutting at index " + a + " keeps " + kept + "; " + cut + "; "
                                + context);
            }
        } else {
            assertTrue(
                    cut.keptTokens() <= budget,
                    () -> "keeps more than the budget without saying so: " + cut + "; " + context);
        }
        assertEquals(expected, Optional.of(c), () -> "not the best cut: " + cut + "; " + context);
    }

    // ---- generator -------------------------------------------------------------------------

    /**
     * An agent conversation: user turns, assistant text, assistant messages with one to four
     * parallel tool calls, and results that come back in one or several later messages, possibly
     * after other calls or a new user message. It may start mid-turn (an earlier compaction
     * took the beginning, sometimes including calls whose results are still here) and may end
     * with calls in flight. One in ten reuses ids from a tiny pool, as bad input would.
     */
    static List<PlanEntry> generate(Random rnd, int maxLength) {
        int length = rnd.nextInt(maxLength + 1);
        boolean reuseIds = rnd.nextInt(10) == 0;
        int idPool = 1 + rnd.nextInt(3);
        List<PlanEntry> window = new ArrayList<>();
        List<String> pending = new ArrayList<>();
        long[] seq = {rnd.nextInt(1000)};
        int[] nextId = {0};

        if (length > 0 && rnd.nextInt(5) == 0) {
            if (rnd.nextBoolean()) {
                add(window, seq, rnd, false, Set.of(), Set.of("gone-" + rnd.nextInt(5)));
            } else {
                add(window, seq, rnd, false, Set.of(), Set.of());
            }
        }
        // Chattier conversations deliver results sooner; others leave calls open across turns.
        int deliverPercent = 25 + rnd.nextInt(60);
        while (window.size() < length) {
            int roll = rnd.nextInt(100);
            if (!pending.isEmpty() && roll < deliverPercent) {
                Set<String> results = new HashSet<>();
                int count = 1 + rnd.nextInt(Math.min(3, pending.size()));
                for (int i = 0; i < count; i++) {
                    results.add(pending.remove(rnd.nextInt(pending.size())));
                }
                add(window, seq, rnd, false, Set.of(), results);
            } else if (roll < 55) {
                add(window, seq, rnd, true, Set.of(), Set.of());
            } else if (roll < 75) {
                add(window, seq, rnd, false, Set.of(), Set.of());
            } else if (roll < 96) {
                Set<String> uses = new HashSet<>();
                int count = 1 + rnd.nextInt(4);
                for (int i = 0; i < count; i++) {
                    String id = reuseIds ? "dup-" + rnd.nextInt(idPool) : "call-" + nextId[0]++;
                    if (uses.add(id)) {
                        pending.add(id);
                    }
                }
                add(window, seq, rnd, false, uses, Set.of());
            } else {
                add(window, seq, rnd, false, Set.of(), Set.of("gone-" + rnd.nextInt(5)));
            }
        }
        // Usually the agent has caught up by the time we plan; sometimes calls are still running.
        if (!pending.isEmpty() && rnd.nextInt(10) < 6) {
            add(window, seq, rnd, false, Set.of(), new HashSet<>(pending));
            if (rnd.nextBoolean()) {
                add(window, seq, rnd, rnd.nextBoolean(), Set.of(), Set.of());
            }
        }
        return List.copyOf(window);
    }

    private static void add(
            List<PlanEntry> window, long[] seq, Random rnd, boolean turnStart, Set<String> uses, Set<String> results) {
        seq[0] += 1 + rnd.nextInt(3);
        window.add(new PlanEntry(seq[0], turnStart, tokens(rnd), uses, results));
    }

    private static long tokens(Random rnd) {
        int roll = rnd.nextInt(100);
        if (roll < 5) {
            return 0;
        }
        if (roll < 80) {
            return 1L + rnd.nextInt(400);
        }
        if (roll < 96) {
            return 400L + rnd.nextInt(20_000);
        }
        // A pasted document or a tool that dumped a whole file.
        return 100_000L + rnd.nextInt(2_000_000);
    }

    static long chooseBudget(Random rnd, List<PlanEntry> window) {
        long total = 0;
        for (PlanEntry e : window) {
            total += e.tokens();
        }
        switch (rnd.nextInt(6)) {
            case 0:
                return 0;
            case 1:
                return total == 0 ? 0 : Math.floorMod(rnd.nextLong(), total + 1);
            case 2:
                return Long.MAX_VALUE;
            case 3:
                return rnd.nextInt(20_000);
            default:
                // Exactly what some cut keeps, or one less, to land on the boundary.
                if (window.size() < 2) {
                    return rnd.nextInt(100);
                }
                int c = 1 + rnd.nextInt(window.size() - 1);
                long kept = 0;
                for (int i = c; i < window.size(); i++) {
                    kept += window.get(i).tokens();
                }
                return Math.max(0, kept - rnd.nextInt(2));
        }
    }

    private static String describe(List<PlanEntry> window) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < window.size(); i++) {
            PlanEntry e = window.get(i);
            sb.append(i == 0 ? "" : " ")
                    .append(i)
                    .append(':')
                    .append(e.turnStart() ? 'U' : 'm')
                    .append(e.tokens());
            if (!e.toolUseIds().isEmpty()) {
                sb.append("use").append(e.toolUseIds());
            }
            if (!e.toolResultIds().isEmpty()) {
                sb.append("res").append(e.toolResultIds());
            }
        }
        return sb.append(']').toString();
    }

    // ---- oracle ----------------------------------------------------------------------------

    /**
     * The pairing rule, by its definition: a result answers the oldest call of its id that came
     * before it (or in the same message) and is not answered yet; a result with no such call
     * answers nothing; a call left unanswered is in flight.
     */
    private static final class Pairing {
        final List<String> pairIds = new ArrayList<>();
        final List<int[]> pairSpans = new ArrayList<>();
        final List<String> openIds = new ArrayList<>();
        final List<Integer> openUses = new ArrayList<>();

        static Pairing of(List<PlanEntry> window) {
            Pairing pairing = new Pairing();
            List<String> callIds = new ArrayList<>();
            List<Integer> callIndexes = new ArrayList<>();
            for (int i = 0; i < window.size(); i++) {
                for (String id : window.get(i).toolUseIds()) {
                    callIds.add(id);
                    callIndexes.add(i);
                }
                for (String id : window.get(i).toolResultIds()) {
                    int oldest = callIds.indexOf(id);
                    if (oldest >= 0) {
                        pairing.pairIds.add(id);
                        pairing.pairSpans.add(new int[] {callIndexes.remove(/* index */ oldest), i});
                        callIds.remove(oldest);
                    }
                }
            }
            pairing.openIds.addAll(callIds);
            pairing.openUses.addAll(callIndexes);
            return pairing;
        }
    }

    /**
     * Brute force over every cut index, straight from the rules: no cut between a call and the
     * result that answers it ({@link Pairing}), and none after a call in flight. Each rule can be
     * switched off to see whether it decided the answer.
     */
    private static final class Oracle {
        private final List<PlanEntry> window;
        private final boolean turnStarts;
        private final boolean pairs;
        private final boolean inFlight;
        private final List<String> pairIds = new ArrayList<>();
        private final List<int[]> pairSpans = new ArrayList<>();
        private final List<String> inFlightIds = new ArrayList<>();
        private final List<Integer> inFlightUses = new ArrayList<>();

        Oracle(List<PlanEntry> window, boolean turnStarts, boolean pairs, boolean inFlight) {
            this.window = window;
            this.turnStarts = turnStarts;
            this.pairs = pairs;
            this.inFlight = inFlight;
            Pairing pairing = Pairing.of(window);
            pairIds.addAll(pairing.pairIds);
            pairSpans.addAll(pairing.pairSpans);
            inFlightIds.addAll(pairing.openIds);
            inFlightUses.addAll(pairing.openUses);
        }

        /** Why cutting before index c is not allowed, or null when it is. */
        String violation(int c) {
            if (c < 1 || c > window.size() - 1) {
                return "index " + c + " leaves nothing to compact or nothing to keep";
            }
            if (turnStarts && !window.get(c).turnStart()) {
                return "kept part starts at index " + c + ", which is not a turn start";
            }
            if (pairs) {
                for (int p = 0; p < pairSpans.size(); p++) {
                    int use = pairSpans.get(p)[0];
                    int result = pairSpans.get(p)[1];
                    if (Math.min(use, result) < c && c <= Math.max(use, result)) {
                        return "separates " + pairIds.get(p) + " used at " + use + " from its result at " + result;
                    }
                }
            }
            if (inFlight) {
                for (int k = 0; k < inFlightIds.size(); k++) {
                    if (inFlightUses.get(k) < c) {
                        return "compacts " + inFlightIds.get(k) + " at " + inFlightUses.get(k)
                                + " while it is in flight";
                    }
                }
            }
            return null;
        }

        List<Integer> allowedCuts() {
            List<Integer> allowed = new ArrayList<>();
            for (int c = 1; c < window.size(); c++) {
                if (violation(c) == null) {
                    allowed.add(c);
                }
            }
            return allowed;
        }

        Optional<Integer> bestCut(long budget) {
            List<Integer> allowed = allowedCuts();
            for (int c : allowed) {
                if (sum(c, window.size()) <= budget) {
                    return Optional.of(c);
                }
            }
            return allowed.isEmpty() ? Optional.empty() : Optional.of(allowed.get(allowed.size() - 1));
        }

        long sum(int from, int to) {
            long sum = 0;
            for (int i = from; i < to; i++) {
                sum += window.get(i).tokens();
            }
            return sum;
        }
    }

    /** How often each kind of case came up, so a weak generator fails loudly. */
    private static final class Tally {
        int empty;
        int withinBudget;
        int overBudget;
        int turnStartDecisive;
        int pairDecisive;
        int inFlightDecisive;
        int reusedIds;

        void record(List<PlanEntry> window, long budget, Optional<Integer> expected, Oracle oracle) {
            if (expected.isEmpty()) {
                empty++;
            } else if (oracle.sum(expected.get(), window.size()) <= budget) {
                withinBudget++;
            } else {
                overBudget++;
            }
            if (!new Oracle(window, false, true, true).bestCut(budget).equals(expected)) {
                turnStartDecisive++;
            }
            if (!new Oracle(window, true, false, true).bestCut(budget).equals(expected)) {
                pairDecisive++;
            }
            if (!new Oracle(window, true, true, false).bestCut(budget).equals(expected)) {
                inFlightDecisive++;
            }
            if (window.stream().anyMatch(e -> e.toolUseIds().stream().anyMatch(id -> id.startsWith("dup-")))) {
                reusedIds++;
            }
        }

        @Override
        public String toString() {
            return "empty=" + empty + " withinBudget=" + withinBudget + " overBudget=" + overBudget
                    + " turnStartDecisive=" + turnStartDecisive + " pairDecisive=" + pairDecisive
                    + " inFlightDecisive=" + inFlightDecisive + " reusedIds=" + reusedIds;
        }
    }
}
