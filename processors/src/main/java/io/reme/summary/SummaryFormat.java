package io.reme.summary;

import io.reme.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The summary's Markdown structure and its validation. Headings are always these English ones, so
 * the structure is machine-checkable whatever language the content is written in:
 * {@code ## Goal}, {@code ## Constraints & Preferences}, {@code ## Progress} with
 * {@code ### Done}, {@code ### In Progress}, {@code ### Blocked}, {@code ## Key Decisions},
 * {@code ## Next Steps}, {@code ## Critical Context}. Every section needs content; {@code (none)}
 * is content.
 */
public final class SummaryFormat {
    public static final List<String> SECTIONS =
            List.of("Goal", "Constraints & Preferences", "Progress", "Key Decisions", "Next Steps", "Critical Context");
    public static final List<String> PROGRESS_PARTS = List.of("Done", "In Progress", "Blocked");

    private SummaryFormat() {}

    /**
     * Everything wrong with a summary, empty when it may be applied.
     *
     * @param maxTokens the budget; 0 or less skips the size check
     */
    public static List<String> problems(String summary, TokenCounter tokens, int maxTokens) {
        List<String> problems = new ArrayList<>();
        if (summary == null || summary.isBlank()) {
            problems.add("the summary is empty");
            return problems;
        }
        for (String section : SECTIONS) {
            String body = section(summary, "## ", section);
            if (body == null) {
                problems.add("missing section '## " + section + "'");
            } else if (section.equals("Progress")) {
                for (String part : PROGRESS_PARTS) {
                    String partBody = section(body, "### ", part);
                    if (partBody == null) {
                        problems.add("missing subsection '### " + part + "' under '## Progress'");
                    } else if (partBody.isBlank()) {
                        problems.add("subsection '### " + part + "' is empty (write (none) if there is nothing)");
                    }
                }
            } else if (body.isBlank()) {
                problems.add("section '## " + section + "' is empty (write (none) if there is nothing)");
            }
        }
        if (maxTokens > 0 && tokens != null) {
            int count = tokens.count(summary);
            if (count > maxTokens) {
                problems.add("the summary has " + count + " tokens, the budget is " + maxTokens);
            }
        }
        return problems;
    }

    /**
     * The text under a heading, up to the next heading of the same or a higher level; null if absent.
     * Headings match case-insensitively and may carry trailing text (e.g. {@code ## Goal (updated)}).
     */
    public static String section(String markdown, String marker, String title) {
        String[] lines = markdown.split("\n", -1);
        int level = marker.trim().length();
        StringBuilder body = null;
        for (String line : lines) {
            String trimmed = line.strip();
            int lineLevel = headingLevel(trimmed);
            if (body == null) {
                if (lineLevel == level
                        && trimmed.substring(level)
                                .strip()
                                .toLowerCase(Locale.ROOT)
                                .startsWith(title.toLowerCase(Locale.ROOT))) {
                    body = new StringBuilder();
                }
            } else if (lineLevel > 0 && lineLevel <= level) {
                break;
            } else {
                body.append(line).append('\n');
            }
        }
        return body == null ? null : body.toString();
    }

    private static int headingLevel(String line) {
        int level = 0;
        while (level < line.length() && line.charAt(level) == '#') {
            level++;
        }
        return level > 0 && level < line.length() && line.charAt(level) == ' ' ? level : 0;
    }
}
