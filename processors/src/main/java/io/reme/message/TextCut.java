package io.reme.message;

/**
 * Where to cut a text that is too long for a budget of characters, for text a reader sees cut (an item
 * of a summary, a block of a transcript): after the last sentence that ends within the budget, else at
 * the last space within it, else at the budget itself; never inside a surrogate pair. A sentence ends
 * after {@code 。！？} (with any closing quotes or brackets that follow), or after {@code . ! ?}
 * followed by white space. A boundary in the first half of the budget is not used: keeping half the
 * text is worth a word cut in two.
 *
 * <p>Tool outputs are not cut here: their excerpt is a byte window onto the stored output, and the
 * agent reads on from the line it ends in.
 */
public final class TextCut {
    private TextCut() {}

    /**
     * The length of the kept part of {@code text} under a budget of {@code maxChars} characters:
     * {@code text.length()} when it fits, else the cut described above. The kept part may end in white
     * space, which the caller strips.
     *
     * @throws IllegalArgumentException if {@code maxChars} is below 1
     */
    public static int end(String text, int maxChars) {
        if (maxChars < 1) {
            throw new IllegalArgumentException("maxChars must be >= 1, got " + maxChars);
        }
        if (text.length() <= maxChars) {
            return text.length();
        }
        int floor = Math.max(1, maxChars / 2);
        int sentence = lastSentenceEnd(text, maxChars, floor);
        if (sentence > 0) {
            return sentence;
        }
        // A space at index maxChars still lets the first maxChars characters be kept whole.
        int space = text.lastIndexOf(' ', maxChars);
        if (space >= floor) {
            return space;
        }
        return Character.isHighSurrogate(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
    }

    /** The largest end in {@code [floor, maxChars]} just after a sentence, or 0. */
    private static int lastSentenceEnd(String text, int maxChars, int floor) {
        for (int end = maxChars; end >= floor; end--) {
            if (endsSentence(text, end)) {
                return end;
            }
        }
        return 0;
    }

    /** Whether {@code text[0, end)} ends a sentence, {@code end < text.length()}. */
    private static boolean endsSentence(String text, int end) {
        char next = text.charAt(end);
        if (isCloser(next)) {
            return false;
        }
        // Closing quotes and brackets belong to the sentence they close: 他说：“好的。”
        int last = end - 1;
        while (last > 0 && isCloser(text.charAt(last))) {
            last--;
        }
        char c = text.charAt(last);
        if (isFullStop(c)) {
            // A run such as ！？ ends the sentence after its last mark.
            return !isFullStop(next);
        }
        return (c == '.' || c == '!' || c == '?') && Character.isWhitespace(next);
    }

    private static boolean isFullStop(char c) {
        return c == '。' || c == '！' || c == '？';
    }

    private static boolean isCloser(char c) {
        return c == '”' || c == '’' || c == '」' || c == '』' || c == '）' || c == '》' || c == '"' || c == ')';
    }
}
