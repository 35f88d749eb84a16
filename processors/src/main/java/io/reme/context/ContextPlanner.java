package io.reme.context;

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
 *   <li>for every tool-call id that has both a use and a result in the window, {@code c} does not
 *       fall in {@code (first, last]}, where first and last are the lowest and highest indexes at
 *       which the id occurs as use or result; with well-formed ids that is exactly "the call and
 *       its result land on the same side", and when an id is reused it covers every way its
 *       uses and results could pair up;</li>
 *   <li>for every id with more uses than results in the window (a call still in flight),
 *       {@code c} is at most the index of its first use, so the call is kept and its result,
 *       when it arrives, finds it; unless the call is unanswered for good: at least
 *       {@link PlanLimits#orphanCallTurns()} turns have started after its first use, or
 *       {@link PlanLimits#orphanCallTokens()} tokens have followed it. Such a call pins nothing
 *       (otherwise one lost result would stop compaction for ever) and is reported in
 *       {@link Cut#unansweredCalls()} when it is compacted.</li>
 * </ul>
 * A result whose use is not in the window (compacted by an earlier cut) constrains nothing.
 *
 * <p>Among allowed cuts the planner takes the smallest one whose kept part fits the budget, which
 * keeps as much verbatim as the budget allows. If none fits, it takes the largest allowed cut that
 * compacts at most {@link PlanLimits#maxSpanTokens()}, which keeps as little over the budget as the
 * span limit lets it, and marks the result over budget; a backlog is then compacted in several steps.
 * The smallest allowed cut is taken even when it alone exceeds the span limit. Runs in time linear
 * in the number of entries and tool ids.
 */
public final class ContextPlanner {

    private ContextPlanner() {
    }

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
                throw new IllegalArgumentException("seq must strictly increase in a window, but seq "
                        + entry.seq() + " at index " + i + " follows seq " + window.get(i - 1).seq());
            }
            total = Math.addExact(total, entry.tokens());
        }
        if (n < 2) {
            return Optional.empty();
        }

        Map<String, ToolIdSpan> spans = new HashMap<>();
        for (int i = 0; i < n; i++) {
            PlanEntry entry = window.get(i);
            for (String id : entry.toolUseIds()) {
                spans.computeIfAbsent(id, k -> new ToolIdSpan()).addUse(i);
            }
            for (String id : entry.toolResultIds()) {
                spans.computeIfAbsent(id, k -> new ToolIdSpan()).addResult(i);
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
        int lastAllowedCut = n - 1;
        Map<String, Integer> orphans = new HashMap<>();
        for (Map.Entry<String, ToolIdSpan> entry : spans.entrySet()) {
            ToolIdSpan span = entry.getValue();
            if (span.uses > 0 && span.results > 0 && span.first < span.last) {
                splitDelta[span.first + 1]++;
                splitDelta[span.last + 1]--;
            }
            if (span.uses > span.results) {
                int use = span.firstUse;
                if (turnsAfter[use] >= limits.orphanCallTurns()
                        || tokensFrom[use + 1] >= limits.orphanCallTokens()) {
                    orphans.put(entry.getKey(), use);
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

    private static Cut cut(List<PlanEntry> window, int c, long compacted, long kept, boolean overBudget,
            Map<String, Integer> orphans) {
        Set<String> unanswered = new TreeSet<>();
        orphans.forEach((id, use) -> {
            if (use < c) {
                unanswered.add(id);
            }
        });
        return new Cut(c, window.get(c - 1).seq(), compacted, kept, overBudget, unanswered);
    }

    /** Where one tool-call id occurs in the window, as use and as result. */
    private static final class ToolIdSpan {
        int first = Integer.MAX_VALUE;
        int last = -1;
        int firstUse = Integer.MAX_VALUE;
        int uses;
        int results;

        void addUse(int index) {
            uses++;
            firstUse = Math.min(firstUse, index);
            cover(index);
        }

        void addResult(int index) {
            results++;
            cover(index);
        }

        private void cover(int index) {
            first = Math.min(first, index);
            last = Math.max(last, index);
        }
    }
}
