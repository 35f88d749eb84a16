package io.reme.workspace;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Resolves a hand edit that raced a model edit of the same document without losing either: the
 * person's text is kept exactly, and the lines the model added since the version the person started
 * from (and the person does not already have) are appended under a marked note. Lines the model
 * removed stay, because the person's file still has them; the person is the one to delete them.
 */
public final class KeepBothMerge {
    static final String NOTE = "<!-- added in version %d while this file was being edited by hand -->";

    private KeepBothMerge() {}

    public static String merge(String base, String human, String model, long modelVersion) {
        Map<String, Integer> inBase = counts(base);
        Set<String> humanLines = new LinkedHashSet<>(human.lines().toList());
        StringBuilder added = new StringBuilder();
        for (String line : model.lines().toList()) {
            Integer left = inBase.get(line);
            if (left != null && left > 0) {
                inBase.put(line, left - 1);
            } else if (!line.isBlank() && !humanLines.contains(line)) {
                added.append(line).append('\n');
            }
        }
        if (added.isEmpty()) {
            return human;
        }
        StringBuilder merged = new StringBuilder(human);
        if (!human.isEmpty() && !human.endsWith("\n")) {
            merged.append('\n');
        }
        return merged.append('\n')
                .append(String.format(NOTE, modelVersion))
                .append('\n')
                .append(added)
                .toString();
    }

    private static Map<String, Integer> counts(String text) {
        Map<String, Integer> counts = new HashMap<>();
        text.lines().forEach(line -> counts.merge(line, 1, Integer::sum));
        return counts;
    }
}
