package io.reme.context;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Chooses how much of the oldest part of a conversation window to compact so that what stays
 * fits a keep budget, without splitting a turn or separating a tool call from its result.
 *
 * <p>Cutting before entry {@code c} compacts entries {@code [0, c)} and keeps {@code [c, n)}.
 * A cut is allowed when
 * <ul>
 *   <li>{@code 1 <= c <= n - 1}, so something is compacted and something is kept;</li>
 *   <li>entry {@code c} starts a turn, so the kept part opens with a user message;</li>
 *   <li>no call is separated from its result. Results are paired with calls in order: a result
 *       answers the oldest call with its id that came before it and is not answered yet, so
 *       {@code c} does not fall in {@code (call, result]} of any pair. With unique ids that is
 *       exactly "the call and its result land on the same side"; an id reused turn after turn
 *       (some agents name every call {@code call_0}) pairs each call with its own result instead
 *       of tying the first call to the last result, which kept nearly the whole window pinned;
 *       and since a result never comes before its call, a cut the in-order pairing allows splits
 *       no pair under any other valid pairing either;</li>
 *   <li>for every call with no result after it (still in flight), {@code c} is at most its
 *       index, so the call is kept and its result, when it arrives, finds it; unless the call is
 *       unanswered for good: at least {@link PlanLimits#orphanCallTurns()} turns have started
 *       after it, or {@link PlanLimits#orphanCallTokens()} tokens have followed it. Such a call
 *       pins nothing (otherwise one lost result would stop compaction for ever) and is reported
 *       in {@link Cut#unansweredCalls()} when it is compacted. Ages are counted per call, so a
 *       fresh call reusing an old call's id is not taken for an old unanswered one.</li>
 * </ul>
 * A result with no unanswered call before it in the window (its call was compacted by an earlier
 * cut, never sent, already answered, or listed after it) answers nothing and constrains nothing:
 * it stays in the window as a tool result like any other and is compacted with its neighbours.
 *
 * <p>Among allowed cuts the planner takes the smallest one whose kept part fits the budget, which
 * keeps as much verbatim as the budget allows. If none fits, it takes the largest allowed cut that
 * compacts at most {@link PlanLimits#maxSpanTokens()}, which keeps as little over the budget as the
 * span limit lets it, and marks the result over budget; a backlog is then compacted in several steps.
 * The smallest allowed cut is taken even when it alone exceeds the span limit. Runs in time linear
 * in the number of entries and tool ids.
 */
public final class ContextPlanner {

    private ContextPlanner() {}

    /**
     * Plans a cut of {@code window}, or returns empty when no cut is allowed.
     *
     * @param window the conversation window, oldest first, seq strictly increasing
     * @param keepBudget tokens the kept part should not exceed; at least zero
     * @throws IllegalArgumentException if the budget is negative or seqs do not increase
     */
    public static Optional<Cut> plan(List<PlanEntry> window, long keepBudget) {
        return plan(window, keepBudget, PlanLimits.NONE);
    }

    /**
     * Plans a cut of {@code window} within {@code limits}, or returns empty when no cut is allowed.
     *
     * @param window the conversation window, oldest first, seq strictly increasing
     * @param keepBudget tokens the kept part should not exceed; at least zero
     * @param limits when unanswered calls stop pinning the window, and the span limit
     * @throws IllegalArgumentException if the budget is negative or seqs do not increase
     */
    public static Optional<Cut> plan(List<PlanEntry> window, long keepBudget, PlanLimits limits) {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(limits, "limits");
        if (keepBudget < 0) {
            throw new IllegalArgumentException("keepBudget must be >= 0, got " + keepBudget);
        }
        int n = window.size();
        long total = 0;
        for (int i = 0; i < n; i++) {
            PlanEntry entry = Objects.requireNonNull(window.get(i), "window entry");
            if (i > 0 && entry.seq() <= window.get(i - 1).seq()) {
                throw new IllegalArgumentException("seq must strictly increase in a window, but seq " + entry.seq()
                        + " at index " + i + " follows seq " + window.get(i - 1).seq());
            }
            total = Math.addExact(total, entry.tokens());
        }
        if (n < 2) {
            return Optional.empty();
        }

        // Pair results with calls in order (oldest open call of the same id first). Uses before results
        // within one message: a message that calls and answers the same id pairs with itself.
        Map<String, ArrayDeque<Integer>> open = new HashMap<>();
        List<int[]> pairs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PlanEntry entry = window.get(i);
            for (String id : entry.toolUseIds()) {
                open.computeIfAbsent(id, k -> new ArrayDeque<>()).addLast(i);
            }
            for (String id : entry.toolResultIds()) {
                ArrayDeque<Integer> calls = open.get(id);
                if (calls != null && !calls.isEmpty()) {
                    pairs.add(new int[] {calls.pollFirst(), i});
                }
            }
        }

        // Turns started after index i, and tokens from index i on, to age calls without results.
        int[] turnsAfter = new int[n + 1];
        long[] tokensFrom = new long[n + 1];
        for (int i = n - 1; i >= 0; i--) {
            turnsAfter[i] = turnsAfter[i + 1] + (i + 1 < n && window.get(i + 1).turnStart() ? 1 : 0);
            tokensFrom[i] = tokensFrom[i + 1] + window.get(i).tokens();
        }

        // Difference array over cut positions: after the prefix sum, a positive count at c means
        // some answered call would be split by cutting there. Avoids rescanning calls per cut.
        int[] splitDelta = new int[n + 1];
        for (int[] pair : pairs) {
            if (pair[0] < pair[1]) {
                splitDelta[pair[0] + 1]++;
                splitDelta[pair[1] + 1]--;
            }
        }
        int lastAllowedCut = n - 1;
        Map<String, Integer> orphans = new HashMap<>();
        for (Map.Entry<String, ArrayDeque<Integer>> entry : open.entrySet()) {
            for (int use : entry.getValue()) {
                if (turnsAfter[use] >= limits.orphanCallTurns() || tokensFrom[use + 1] >= limits.orphanCallTokens()) {
                    // The oldest unanswered use of an id is the one that decides when it is compacted.
                    orphans.merge(entry.getKey(), use, Math::min);
                } else {
                    lastAllowedCut = Math.min(lastAllowedCut, use);
                }
            }
        }

        // Kept tokens only shrink as c grows, so the first allowed cut within budget is the one
        // keeping the most, and the last allowed cut within the span limit is the one overshooting
        // the least.
        int splitting = 0;
        long compacted = 0;
        int fallback = -1;
        long fallbackCompacted = 0;
        for (int c = 1; c <= lastAllowedCut; c++) {
            splitting += splitDelta[c];
            compacted += window.get(c - 1).tokens();
            if (splitting > 0 || !window.get(c).turnStart()) {
                continue;
            }
            if (compacted > limits.maxSpanTokens() && fallback >= 0) {
                break;
            }
            long kept = total - compacted;
            if (kept <= keepBudget) {
                return Optional.of(cut(window, c, compacted, kept, false, orphans));
            }
            fallback = c;
            fallbackCompacted = compacted;
            if (compacted > limits.maxSpanTokens()) {
                break;
            }
        }
        if (fallback < 0) {
            return Optional.empty();
        }
        return Optional.of(cut(window, fallback, fallbackCompacted, total - fallbackCompacted, true, orphans));
    }

    private static Cut cut(
            List<PlanEntry> window,
            int c,
            long compacted,
            long kept,
            boolean overBudget,
            Map<String, Integer> orphans) {
        Set<String> unanswered = new TreeSet<>();
        orphans.forEach((id, use) -> {
            if (use < c) {
                unanswered.add(id);
            }
        });
        return new Cut(c, window.get(c - 1).seq(), compacted, kept, overBudget, unanswered);
    }
}
