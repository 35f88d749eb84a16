package io.reme.provider.offline;

import io.reme.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes the sections as a structured summary ({@code ## Goal} with the offline marker, Constraints
 * &amp; Preferences, Progress with Done / In Progress / Blocked, Key Decisions, numbered Next Steps,
 * Critical Context; {@code (none)} for an empty one) within a token budget: while it is over
 * {@code maxTokens}, the oldest item of the longest section (in tokens) is dropped. Headings and the
 * marker are never dropped, so a budget smaller than the empty structure cannot be met. Thread-safe.
 */
final class SummaryRenderer {
    private final TokenCounter tokens;

    SummaryRenderer(TokenCounter tokens) {
        this.tokens = Objects.requireNonNull(tokens, "tokens");
    }

    /** The summary of {@code sections}, dropping items from them until it fits {@code maxTokens} (0: no limit). */
    String fit(Map<Section, Items> sections, int maxTokens) {
        String summary = render(sections);
        if (maxTokens <= 0) {
            return summary;
        }
        int total = tokens.count(summary);
        if (total <= maxTokens) {
            return summary;
        }
        Map<Section, List<Integer>> costs = new EnumMap<>(Section.class);
        Map<Section, Integer> sectionCost = new EnumMap<>(Section.class);
        for (Section kind : Section.values()) {
            List<Integer> itemCosts = new ArrayList<>();
            int sum = 0;
            for (String item : sections.get(kind).list) {
                int cost = tokens.count("- " + item + "\n");
                itemCosts.add(cost);
                sum += cost;
            }
            costs.put(kind, itemCosts);
            sectionCost.put(kind, sum);
        }
        int estimate = total;
        while (total > maxTokens) {
            Section longest = null;
            for (Section kind : Section.values()) {
                if (!sections.get(kind).list.isEmpty()
                        && (longest == null || sectionCost.get(kind) > sectionCost.get(longest))) {
                    longest = kind;
                }
            }
            if (longest == null) {
                break;
            }
            sections.get(longest).removeFirst();
            int cost = costs.get(longest).removeFirst();
            sectionCost.put(longest, sectionCost.get(longest) - cost);
            estimate -= cost;
            if (estimate <= maxTokens) {
                summary = render(sections);
                total = tokens.count(summary);
                estimate = total;
            }
        }
        return render(sections);
    }

    private static String render(Map<Section, Items> sections) {
        StringBuilder out = new StringBuilder();
        out.append("## Goal\n").append(OfflineLlmClient.SUMMARY_MARKER).append('\n');
        bullets(out, sections.get(Section.GOAL).list, false);
        out.append("\n## Constraints & Preferences\n");
        bullets(out, sections.get(Section.CONSTRAINT).list, false);
        out.append("\n## Progress\n### Done\n");
        bullets(out, sections.get(Section.DONE).list, false);
        out.append("### In Progress\n");
        bullets(out, sections.get(Section.IN_PROGRESS).list, false);
        out.append("### Blocked\n");
        bullets(out, sections.get(Section.BLOCKED).list, false);
        out.append("\n## Key Decisions\n");
        bullets(out, sections.get(Section.DECISION).list, false);
        out.append("\n## Next Steps\n");
        bullets(out, sections.get(Section.NEXT).list, true);
        out.append("\n## Critical Context\n");
        bullets(out, sections.get(Section.CONTEXT).list, false);
        return out.toString();
    }

    private static void bullets(StringBuilder out, List<String> items, boolean numbered) {
        if (items.isEmpty()) {
            out.append("(none)\n");
            return;
        }
        int n = 1;
        for (String item : items) {
            out.append(numbered ? (n++) + ". " : "- ").append(item).append('\n');
        }
    }
}
