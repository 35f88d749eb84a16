package io.reme.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ContextPlannerTest {

    @Test
    void emptyAndSingleEntryWindowsHaveNoCut() {
        assertEquals(Optional.empty(), ContextPlanner.plan(List.of(), 0));
        assertEquals(
                Optional.empty(),
                ContextPlanner.plan(new Conversation().user(500).build(), 0));
        assertEquals(
                Optional.empty(),
                ContextPlanner.plan(new Conversation().user(500).build(), 1000));
    }

    @Test
    void simpleTurnsKeepAsMuchAsFitsTheBudget() {
        // index:           0         1              2         3              4         5
        List<PlanEntry> w = new Conversation()
                .user(100)
                .assistant(100)
                .user(100)
                .assistant(100)
                .user(100)
                .assistant(100)
                .build();

        assertEquals(new Cut(2, 20, 200, 400, false), plan(w, 10_000));
        assertEquals(new Cut(2, 20, 200, 400, false), plan(w, 400));
        assertEquals(new Cut(4, 40, 400, 200, false), plan(w, 399));
        assertEquals(new Cut(4, 40, 400, 200, false), plan(w, 200));
        assertEquals(new Cut(4, 40, 400, 200, true), plan(w, 199));
    }

    @Test
    void neverCutsMidTurn() {
        // A long agentic turn: the assistant alone would fit the budget, but cutting inside the
        // turn would leave the kept part without the user message that asked for it.
        List<PlanEntry> w = new Conversation()
                .user(10)
                .assistant(10)
                .user(10)
                .assistant(300)
                .assistant(300)
                .assistant(50)
                .build();

        assertEquals(new Cut(2, 20, 20, 660, true), plan(w, 100));
        assertEquals(new Cut(2, 20, 20, 660, false), plan(w, 660));
    }

    @Test
    void newestTurnAloneOverBudgetCutsAtItsStart() {
        List<PlanEntry> w = new Conversation()
                .user(50)
                .assistant(50)
                .user(50)
                .assistant(50)
                .user(40_000)
                .assistant(2_000)
                .build();

        assertEquals(new Cut(4, 40, 200, 42_000, true), plan(w, 10_000));
    }

    @Test
    void keepsAToolCallWithTheResultInTheNextMessage() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "t1")
                .results(500, "t1")
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(4, 40, 530, 20, false), plan(w, 1000));
    }

    @Test
    void doesNotSeparateACallFromAResultThatArrivesAfterANewUserMessage() {
        // The user spoke while t1 ran; cutting at index 2 would keep the result but drop the call.
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "t1")
                .user(10)
                .results(10, "t1")
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(5, 50, 50, 20, false), plan(w, 1000));
        assertEquals(new Cut(5, 50, 50, 20, true), plan(w, 5));
    }

    @Test
    void handlesParallelCallsWithResultsSpreadOverLaterMessages() {
        List<PlanEntry> w = new Conversation()
                .user(10) // 0
                .call(10, "a", "b", "c") // 1
                .results(10, "a") // 2
                .user(10) // 3 would split b and c
                .call(10, "d") // 4
                .results(10, "b", "d") // 5
                .user(10) // 6 would split c
                .results(10, "c") // 7
                .assistant(10) // 8
                .user(10) // 9 first turn start outside every call
                .assistant(10) // 10
                .build();

        assertEquals(new Cut(9, 90, 90, 20, false), plan(w, 1000));
    }

    @Test
    void parallelCallsAnsweredBeforeATurnStartAllowThatCut() {
        List<PlanEntry> w = new Conversation()
                .user(10) // 0
                .call(10, "a", "b") // 1
                .results(10, "a") // 2
                .user(10) // 3 would split b
                .call(10, "d") // 4
                .results(10, "d", "b") // 5
                .user(10) // 6
                .assistant(10) // 7
                .user(10) // 8
                .assistant(10) // 9
                .build();

        assertEquals(new Cut(6, 60, 60, 40, false), plan(w, 1000));
        assertEquals(new Cut(8, 80, 80, 20, false), plan(w, 39));
    }

    @Test
    void keepsACallStillInFlightAtTheTail() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .assistant(10)
                .user(10)
                .call(10, "pending") // index 3, no result yet
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(2, 20, 20, 40, false), plan(w, 1000));
        // Index 4 would fit the budget but would drop the call the coming result belongs to.
        assertEquals(new Cut(2, 20, 20, 40, true), plan(w, 20));
    }

    @Test
    void aCallInFlightSinceTheFirstTurnLeavesNoCut() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "pending")
                .user(10)
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(Optional.empty(), ContextPlanner.plan(w, 1000));
    }

    @Test
    void anOrphanResultConstrainsNothing() {
        // "old" was called before the last compaction; only its result is still in the window.
        List<PlanEntry> w = new Conversation()
                .results(10, "old")
                .assistant(10)
                .user(10)
                .results(10, "old2")
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(2, 20, 20, 50, false), plan(w, 1000));
        assertEquals(new Cut(5, 50, 50, 20, false), plan(w, 49));
    }

    @Test
    void aResultListedBeforeItsCallAnswersNothingAndTheCallWaitsForItsOwn() {
        // Bad input: a result cannot answer a call made after it. The result is an orphan (it pins
        // nothing); the call after it is in flight and pins the cut at itself, as any unanswered call.
        List<PlanEntry> w = new Conversation()
                .user(10)
                .results(10, "x")
                .user(10)
                .call(10, "x")
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(2, 20, 20, 40, false), plan(w, 1000));
        assertEquals(new Cut(2, 20, 20, 40, true), plan(w, 20));
    }

    @Test
    void noTurnStartAfterTheFirstMeansNoCut() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "t1")
                .results(10, "t1")
                .call(10, "t2")
                .results(10, "t2")
                .assistant(10)
                .build();

        assertEquals(Optional.empty(), ContextPlanner.plan(w, 0));
        assertEquals(Optional.empty(), ContextPlanner.plan(w, Long.MAX_VALUE));
    }

    @Test
    void aWindowNotStartingWithAUserMessageCanStillBeCut() {
        List<PlanEntry> w =
                new Conversation().assistant(10).user(10).assistant(10).build();

        assertEquals(new Cut(1, 10, 10, 20, false), plan(w, 20));
    }

    @Test
    void aKeptPartOfZeroTokensFitsAZeroBudget() {
        List<PlanEntry> w =
                new Conversation().user(10).assistant(10).user(0).assistant(0).build();

        assertEquals(new Cut(2, 20, 20, 0, false), plan(w, 0));
    }

    @Test
    void reusedIdsPairEachCallWithTheResultThatFollowsIt() {
        // Two calls share the id "x"; a result answers the oldest unanswered call before it, so each
        // turn is whole on its own and the cut may fall between them, but never inside either.
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "x")
                .results(10, "x")
                .user(10)
                .call(10, "x")
                .results(10, "x")
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(3, 30, 30, 50, false), plan(w, 1000));
        assertEquals(new Cut(6, 60, 60, 20, false), plan(w, 20));
    }

    @Test
    void aReusedIdWithMoreCallsThanResultsKeepsTheUnansweredCall() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "x")
                .results(10, "x")
                .user(10)
                .call(10, "x")
                .user(10)
                .assistant(10)
                .build();

        // The first "x" is answered; the second is in flight and pins every cut after it.
        assertEquals(new Cut(3, 30, 30, 40, false), plan(w, 1000));
        assertEquals(new Cut(3, 30, 30, 40, true), plan(w, 20));
    }

    @Test
    void anIdReusedInEveryTurnDoesNotPinTheWindow() {
        // Some agents name every call "call_0". Five answered turns, then a sixth whose call runs.
        Conversation c = new Conversation();
        for (int t = 0; t < 5; t++) {
            c.user(10).call(10, "call_0").results(10, "call_0").assistant(10);
        }
        List<PlanEntry> w = c.user(10).call(10, "call_0").build();

        // Tying the first call_0 to the last one left no cut at all while a call ran.
        assertEquals(new Cut(16, 160, 160, 60, false), plan(w, 60));
        // The running call is fresh: it is kept, not compacted as an old unanswered call_0.
        Cut limited = ContextPlanner.plan(w, 20, new PlanLimits(2, Long.MAX_VALUE, Long.MAX_VALUE))
                .orElseThrow();
        assertEquals(new Cut(20, 200, 200, 20, false, Set.of()), limited);
    }

    @Test
    void aRepeatedResultAnswersNothingAndPinsNothing() {
        // The tool message for "x" was sent twice, the second time a turn later.
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "x")
                .results(10, "x")
                .user(10)
                .results(10, "x")
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(new Cut(3, 30, 30, 50, false), plan(w, 1000));
    }

    @Test
    void staysLinearOnLargeWindows() {
        // Every call spans many turn starts and one call stays open until near the end, so a
        // planner that rescans calls per candidate cut would need on the order of 10^10 steps.
        int turns = 100_000;
        Conversation c = new Conversation();
        List<String> open = new ArrayList<>();
        for (int t = 0; t < turns; t++) {
            c.user(3);
            String id = "call-" + t;
            c.call(5, id);
            open.add(id);
            if (t % 2 == 0 && open.size() > 1) {
                c.results(7, open.remove(0));
            }
        }
        c.results(7, open.toArray(String[]::new));
        c.user(1).assistant(1);
        List<PlanEntry> w = c.build();

        Cut cut = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> plan(w, 10));
        assertEquals(w.size() - 2, cut.compactCount());
        assertEquals(2, cut.keptTokens());
        assertFalse(cut.overBudget());
    }

    @Test
    void rejectsBadWindowsAndBudgets() {
        List<PlanEntry> unordered =
                List.of(new PlanEntry(5, true, 1, null, null), new PlanEntry(5, false, 1, null, null));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> ContextPlanner.plan(unordered, 10));
        assertTrue(e.getMessage().contains("seq"), e.getMessage());

        List<PlanEntry> ok = new Conversation().user(1).assistant(1).build();
        assertThrows(IllegalArgumentException.class, () -> ContextPlanner.plan(ok, -1));
        assertThrows(NullPointerException.class, () -> ContextPlanner.plan(null, 10));
        List<PlanEntry> withNull = new ArrayList<>(ok);
        withNull.add(null);
        assertThrows(NullPointerException.class, () -> ContextPlanner.plan(withNull, 10));
    }

    @Test
    void planEntryCopiesItsIdsAndValidates() {
        Set<String> uses = new HashSet<>(Set.of("a"));
        PlanEntry entry = new PlanEntry(1, false, 3, uses, null);
        uses.add("b");
        assertEquals(Set.of("a"), entry.toolUseIds());
        assertEquals(Set.of(), entry.toolResultIds());
        assertThrows(
                UnsupportedOperationException.class, () -> entry.toolUseIds().add("c"));

        assertThrows(IllegalArgumentException.class, () -> new PlanEntry(1, false, -1, null, null));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new PlanEntry(7, true, 1, null, Set.of("r")));
        assertTrue(e.getMessage().contains("seq 7"), e.getMessage());
    }

    @Test
    void cutValidates() {
        assertThrows(IllegalArgumentException.class, () -> new Cut(0, 1, 0, 0, false));
        assertThrows(IllegalArgumentException.class, () -> new Cut(1, 1, -1, 0, false));
        assertThrows(IllegalArgumentException.class, () -> new Cut(1, 1, 0, -1, false));
    }

    @Test
    void aCallUnansweredForEnoughTurnsNoLongerPinsTheWindow() {
        // The result of "lost" never came; the conversation went on for three more turns.
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "lost")
                .user(10)
                .assistant(10)
                .user(10)
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        // Without limits the call pins every cut at itself: no cut at all, for ever.
        assertEquals(Optional.empty(), ContextPlanner.plan(w, 20));
        // Three turns have started after it: with a limit of three it is unanswered for good.
        Cut cut = ContextPlanner.plan(w, 20, new PlanLimits(3, Long.MAX_VALUE, Long.MAX_VALUE))
                .orElseThrow();
        assertEquals(new Cut(6, 60, 60, 20, false, Set.of("lost")), cut);
        // With a limit of four it still waits for its result.
        assertEquals(Optional.empty(), ContextPlanner.plan(w, 20, new PlanLimits(4, Long.MAX_VALUE, Long.MAX_VALUE)));
    }

    @Test
    void aCallFollowedByEnoughTokensIsUnansweredForGood() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .call(10, "lost")
                .user(500)
                .assistant(500)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(Optional.empty(), ContextPlanner.plan(w, 20, new PlanLimits(10, 1021, Long.MAX_VALUE)));
        assertEquals(
                new Cut(4, 40, 1020, 20, false, Set.of("lost")),
                ContextPlanner.plan(w, 20, new PlanLimits(10, 1020, Long.MAX_VALUE))
                        .orElseThrow());
    }

    @Test
    void anUnansweredCallIsReportedOnlyWhenItIsCompacted() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .assistant(10)
                .user(10)
                .call(10, "lost")
                .user(10)
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();
        PlanLimits limits = new PlanLimits(1, Long.MAX_VALUE, Long.MAX_VALUE);

        assertEquals(
                new Cut(2, 20, 20, 60, false, Set.of()),
                ContextPlanner.plan(w, 1000, limits).orElseThrow());
        assertEquals(
                new Cut(4, 40, 40, 40, false, Set.of("lost")),
                ContextPlanner.plan(w, 40, limits).orElseThrow());
    }

    @Test
    void aRecentCallWithoutResultStillPinsTheWindowUnderLimits() {
        List<PlanEntry> w = new Conversation()
                .user(10)
                .assistant(10)
                .user(10)
                .call(10, "running")
                .user(10)
                .assistant(10)
                .build();

        assertEquals(
                new Cut(2, 20, 20, 40, true, Set.of()),
                ContextPlanner.plan(w, 20, new PlanLimits(2, 1000, Long.MAX_VALUE))
                        .orElseThrow());
    }

    @Test
    void theSpanLimitTakesABacklogInSteps() {
        // Ten turns of 100 tokens; keeping 100 would compact 900 at once.
        Conversation c = new Conversation();
        for (int i = 0; i < 10; i++) {
            c.user(50).assistant(50);
        }
        List<PlanEntry> w = c.build();

        assertEquals(new Cut(18, 180, 900, 100, false), plan(w, 100));
        // At most 350 tokens per step: the largest allowed cut within it, marked over budget.
        assertEquals(
                new Cut(6, 60, 300, 700, true),
                ContextPlanner.plan(w, 100, new PlanLimits(1, Long.MAX_VALUE, 350))
                        .orElseThrow());
        // A limit exactly on a turn boundary is reached, not passed.
        assertEquals(
                new Cut(8, 80, 400, 600, true),
                ContextPlanner.plan(w, 100, new PlanLimits(1, Long.MAX_VALUE, 400))
                        .orElseThrow());
        // Within the limit the budget decides as before.
        assertEquals(
                new Cut(2, 20, 100, 900, false),
                ContextPlanner.plan(w, 900, new PlanLimits(1, Long.MAX_VALUE, 350))
                        .orElseThrow());
    }

    @Test
    void aFirstTurnLargerThanTheSpanLimitIsStillTakenAlone() {
        List<PlanEntry> w = new Conversation()
                .user(500)
                .assistant(500)
                .user(10)
                .assistant(10)
                .user(10)
                .assistant(10)
                .build();

        assertEquals(
                new Cut(2, 20, 1000, 40, true),
                ContextPlanner.plan(w, 20, new PlanLimits(1, Long.MAX_VALUE, 100))
                        .orElseThrow());
    }

    @Test
    void planLimitsValidate() {
        assertThrows(IllegalArgumentException.class, () -> new PlanLimits(0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new PlanLimits(1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new PlanLimits(1, 1, 0));
        ContextPolicy policy = new ContextPolicy(10_000, 0.7, 100, 0, 3, 5000, 0.25);
        assertEquals(new PlanLimits(3, 5000, 2500), PlanLimits.of(policy, 0, 0));
        // The previous summary goes into the same prompt.
        assertEquals(new PlanLimits(3, 5000, 2200), PlanLimits.of(policy, 300, 0));
        assertEquals(new PlanLimits(3, 5000, 1), PlanLimits.of(policy, 3000, 0));
        // A limit learnt from a refusal applies when it is the smaller.
        assertEquals(new PlanLimits(3, 5000, 1200), PlanLimits.of(policy, 0, 1200));
        assertEquals(new PlanLimits(3, 5000, 2200), PlanLimits.of(policy, 300, 9000));
    }

    private static Cut plan(List<PlanEntry> window, long keepBudget) {
        return ContextPlanner.plan(window, keepBudget).orElseThrow(() -> new AssertionError("expected a cut"));
    }

    /** Builds windows message by message; seq is ten times the position so it never equals the index. */
    private static final class Conversation {
        private final List<PlanEntry> entries = new ArrayList<>();

        Conversation user(long tokens) {
            return add(true, tokens, Set.of(), Set.of());
        }

        Conversation assistant(long tokens) {
            return add(false, tokens, Set.of(), Set.of());
        }

        Conversation call(long tokens, String... ids) {
            return add(false, tokens, Set.of(ids), Set.of());
        }

        Conversation results(long tokens, String... ids) {
            return add(false, tokens, Set.of(), Set.of(ids));
        }

        List<PlanEntry> build() {
            return List.copyOf(entries);
        }

        private Conversation add(boolean turnStart, long tokens, Set<String> uses, Set<String> results) {
            entries.add(new PlanEntry(10L * (entries.size() + 1), turnStart, tokens, uses, results));
            return this;
        }
    }
}
