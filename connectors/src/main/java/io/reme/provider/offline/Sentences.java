package io.reme.provider.offline;

import io.reme.message.TextCut;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sentence splitting and the forms a sentence is compared in. Text is split into lines by the caller,
 * a line into sentences on {@code . ! ?} followed by a space (not after a list number) and after
 * {@code 。！？}; of a very long block only the first and the last {@value #MAX_SCAN_CHARS} characters
 * are read. Items are compared case-insensitively, ignoring spacing, list markers and trailing
 * punctuation ({@link #key}).
 */
final class Sentences {
    static final int MAX_SCAN_CHARS = 64 * 1024;
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    static final Pattern LIST_LINE = Pattern.compile("(\\d{1,3}[.)]|[-*+•])\\s+(.*)", Pattern.DOTALL);
    private static final Pattern SENTENCE_END =
            Pattern.compile("(?<=[.!?])(?<!(?:^|[\\s:(（])\\d{1,2}\\.)\\s+|(?<=[。！？])\\s*");
    private static final Pattern TRAILING_SENTENCE_PUNCTUATION = Pattern.compile("[\\s.,;:。，；：、]+$");

    private Sentences() {}

    /** The text, or of a very long one its beginning and end ({@value #MAX_SCAN_CHARS} characters each). */
    static String scanned(String text) {
        return text.length() <= 2 * MAX_SCAN_CHARS
                ? text
                : text.substring(0, MAX_SCAN_CHARS) + "\n" + text.substring(text.length() - MAX_SCAN_CHARS);
    }

    /** Splits a line into sentences on {@code . ! ?} followed by a space (not after a list number) and after {@code 。！？}. */
    static List<String> sentences(String line) {
        List<String> out = new ArrayList<>();
        for (String part : SENTENCE_END.split(line)) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }

    /** Collapses spaces, removes list markers and trailing sentence punctuation. */
    static String clean(String text) {
        String s = WHITESPACE.matcher(text).replaceAll(" ").strip();
        Matcher list = LIST_LINE.matcher(s);
        if (list.matches()) {
            s = list.group(2).strip();
        }
        return TRAILING_SENTENCE_PUNCTUATION.matcher(s).replaceFirst("");
    }

    /** The comparison form of an item: cleaned and lower case. */
    static String key(String text) {
        return clean(text).toLowerCase(Locale.ROOT);
    }

    /** Lower case with spacing collapsed and trailing punctuation removed, for containment checks against a document. */
    static String normalize(String text) {
        return TRAILING_SENTENCE_PUNCTUATION
                .matcher(WHITESPACE.matcher(text).replaceAll(" ").strip())
                .replaceFirst("")
                .toLowerCase(Locale.ROOT);
    }

    static boolean containsWord(String haystack, String needle) {
        int from = 0;
        while (true) {
            int at = haystack.indexOf(needle, from);
            if (at < 0) {
                return false;
            }
            int after = at + needle.length();
            boolean startOk = at == 0
                    || !Character.isLetterOrDigit(haystack.charAt(at - 1))
                    || !Character.isLetterOrDigit(needle.charAt(0));
            boolean endOk = after == haystack.length()
                    || !Character.isLetterOrDigit(haystack.charAt(after))
                    || !Character.isLetterOrDigit(needle.charAt(needle.length() - 1));
            if (startOk && endOk) {
                return true;
            }
            from = at + 1;
        }
    }

    /** The text, or its part kept under {@code max} characters ({@link TextCut}) and an ellipsis. */
    static String cut(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        return text.substring(0, TextCut.end(text, max)).strip() + "…";
    }

    /** The level of a Markdown heading line ({@code ## x} is 2), or 0 if the line is not one. */
    static int headingLevel(String line) {
        int level = 0;
        while (level < line.length() && line.charAt(level) == '#') {
            level++;
        }
        return level > 0 && level < line.length() && line.charAt(level) == ' ' ? level : 0;
    }
}
