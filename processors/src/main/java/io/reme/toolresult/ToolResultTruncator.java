package io.reme.toolresult;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cuts oversized tool outputs to a UTF-8 byte budget and appends a notice pointing the agent at the
 * stored full output and the line to continue reading from.
 *
 * <p>Pure logic: the caller decides the limit and makes sure the full text ends up at the stored path.
 */
public final class ToolResultTruncator {

    /** Separates the kept excerpt from the notice; its presence is what marks an output as truncated. */
    public static final String MARKER = "<<<TRUNCATED>>>";

    /**
     * Outputs only slightly over the limit are left alone: the notice would cost about as much as it
     * saves, and the agent would need an extra read for a handful of bytes.
     */
    public static final int SLACK_BYTES = 100;

    /** Longest ID {@link #storedPath} takes, so a notice has a bounded length. */
    public static final int MAX_ID_LENGTH = 200;

    /**
     * No notice this class writes is longer (about 260 chars and the path); a marker further from the
     * end belongs to the tool's own output, however much of a notice follows it.
     */
    private static final int MAX_NOTICE_CHARS = 1024;

    private static final String STORE_DIR = "tool_result/";
    private static final String STORE_SUFFIX = ".txt";

    // The anchors are the machine-readable contract of the notice: re-truncation finds and rewrites them.
    private static final Pattern STARTS_AT = Pattern.compile("starts at line (\\d+)");
    private static final Pattern COVERS = Pattern.compile("covers the next (\\d+) bytes");
    private static final Pattern START_LINE = Pattern.compile("start_line=(\\d+)");
    private static final Pattern TOTAL_LINES = Pattern.compile("The complete output \\((\\d+) lines\\)");

    /**
     * Truncates an output that has not been truncated before.
     *
     * @param text the tool output
     * @param limitBytes UTF-8 byte budget for the kept excerpt
     * @param storedPath where the full output is stored, as given by {@link #storedPath(String)}
     * @return the excerpt with its notice, or empty when the text should stay as it is
     */
    public Optional<String> truncate(String text, int limitBytes, String storedPath) {
        Objects.requireNonNull(storedPath, "storedPath");
        if (text == null || text.isEmpty() || limitBytes <= 0) {
            return Optional.empty();
        }
        if (!exceeds(text, limitBytes)) {
            return Optional.empty();
        }
        // Cutting again from scratch would lose the original line numbers and stored path. Text that merely
        // contains the marker (e.g. output of a search for it) has no readable notice and is cut afresh.
        if (isTruncated(text)) {
            return retruncate(text, limitBytes);
        }

        int cut = cutIndex(text, text.length(), limitBytes);
        int excerptNewlines = countNewlines(text, 0, cut);
        int totalLines = excerptNewlines + countNewlines(text, cut, text.length()) + 1;
        String excerpt = text.substring(0, cut);
        // A single line gets a notice too: it names where the whole output is (without one the reader never
        // learns it, and a later re-cut took the excerpt for a fresh output and stored it over the full one).
        int startLine = 1;
        // The excerpt usually ends inside a line; pointing at that line makes the agent re-read it whole.
        // Without any newline that would be line 1 again, so move on to keep the reader making progress.
        int nextLine = Math.min(startLine + Math.max(1, excerptNewlines), totalLines);
        return Optional.of(excerpt + "\n" + notice(storedPath, totalLines, startLine, limitBytes, nextLine));
    }

    /**
     * Whether {@code text} is over {@code limitBytes} by more than the slack, that is whether
     * {@link #truncate} would cut it. Reads no further than the limit: a 150 KB output is not measured
     * whole to learn that it is over 3 KB.
     */
    public static boolean exceeds(String text, int limitBytes) {
        return text != null && exceeds(text, text.length(), (long) limitBytes + SLACK_BYTES);
    }

    /**
     * Shrinks an already truncated output to a smaller budget, keeping its stored path and start line.
     *
     * @param truncatedText an output produced by {@link #truncate(String, int, String)}
     * @param limitBytes the new, usually smaller, byte budget
     * @return the shorter excerpt with an updated notice, or empty when the text should stay as it is
     *     (already small enough, or the notice is not one this class can read)
     */
    public Optional<String> retruncate(String truncatedText, int limitBytes) {
        if (truncatedText == null || limitBytes <= 0) {
            return Optional.empty();
        }
        int markerAt = noticeStart(truncatedText);
        if (markerAt < 0) {
            return Optional.empty();
        }
        // The excerpt is truncatedText[0, excerptEnd), worked on in place: it is mostly much longer than
        // what is kept of it, and copying it would cost more than the cut.
        int excerptEnd = markerAt;
        if (excerptEnd > 0 && truncatedText.charAt(excerptEnd - 1) == '\n') {
            // Drop the separator truncate() put before the marker; it is not part of the output.
            excerptEnd--;
        }
        if (!exceeds(truncatedText, excerptEnd, (long) limitBytes + SLACK_BYTES)) {
            return Optional.empty();
        }

        String notice = truncatedText.substring(markerAt);
        OptionalInt startLine = anchorValue(STARTS_AT, notice);
        if (startLine.isEmpty()
                || startLine.getAsInt() < 1
                || anchorValue(COVERS, notice).isEmpty()
                || anchorValue(START_LINE, notice).isEmpty()) {
            // A damaged notice is still readable by the agent; rewriting half of it would make it wrong.
            return Optional.empty();
        }

        String shorter = truncatedText.substring(0, cutIndex(truncatedText, excerptEnd, limitBytes));
        long nextLine = (long) startLine.getAsInt() + Math.max(1, countNewlines(shorter, 0, shorter.length()));
        // Never past the last line: a one-line output is read on from line 1 (as truncate says).
        OptionalInt totalLines = anchorValue(TOTAL_LINES, notice);
        if (totalLines.isPresent() && totalLines.getAsInt() >= 1) {
            nextLine = Math.min(nextLine, totalLines.getAsInt());
        }
        if (nextLine > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        String rewritten = replaceValue(COVERS, notice, limitBytes);
        rewritten = replaceValue(START_LINE, rewritten, (int) nextLine);
        return Optional.of(shorter + "\n" + rewritten);
    }

    /** Whether the text ends with a truncation notice this class can read and rewrite. */
    public static boolean isTruncated(String text) {
        if (text == null) {
            return false;
        }
        int markerAt = noticeStart(text);
        if (markerAt < 0) {
            return false;
        }
        String notice = text.substring(markerAt);
        return anchorValue(STARTS_AT, notice).isPresent()
                && anchorValue(COVERS, notice).isPresent()
                && anchorValue(START_LINE, notice).isPresent();
    }

    /**
     * Where the notice would start: the last marker within the longest notice from the end, or -1. Our
     * notice is always last, and searching only the tail keeps a 150 KB output from being scanned whole.
     */
    private static int noticeStart(String text) {
        int at = text.indexOf(MARKER, Math.max(0, text.length() - MAX_NOTICE_CHARS));
        if (at < 0) {
            return -1;
        }
        for (int next = text.indexOf(MARKER, at + 1); next >= 0; next = text.indexOf(MARKER, next + 1)) {
            at = next;
        }
        return at;
    }

    /**
     * Where the full output of a tool result is stored, relative to the sink's root.
     *
     * @throws IllegalArgumentException if the id is blank or could escape the directory or break the notice
     */
    public static String storedPath(String toolResultId) {
        if (toolResultId == null || toolResultId.isBlank()) {
            throw new IllegalArgumentException("tool result id must not be blank");
        }
        if (toolResultId.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("tool result id longer than " + MAX_ID_LENGTH + " chars");
        }
        for (int i = 0; i < toolResultId.length(); i++) {
            char c = toolResultId.charAt(i);
            // Separators would let an id write outside the directory; control characters would split
            // the notice line that carries the path.
            if (c == '/' || c == '\\' || Character.isISOControl(c)) {
                throw new IllegalArgumentException("tool result id contains an illegal character: " + toolResultId);
            }
        }
        return STORE_DIR + toolResultId + STORE_SUFFIX;
    }

    private static String notice(String storedPath, int totalLines, int startLine, int coveredBytes, int nextLine) {
        // No punctuation right after the path, so an agent copying it does not pick up a stray period.
        return MARKER + "\n"
                + "Tool output truncated: it was too long to show in full.\n"
                + "The complete output (" + totalLines + " lines) is stored in " + storedPath + "\n"
                + "This excerpt starts at line " + startLine + " and covers the next " + coveredBytes
                + " bytes.\n"
                + "To continue, read that file with start_line=" + nextLine + ".";
    }

    private static OptionalInt anchorValue(Pattern anchor, String notice) {
        Matcher m = anchor.matcher(notice);
        if (!m.find()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(m.group(1)));
        } catch (NumberFormatException tooLarge) {
            return OptionalInt.empty();
        }
    }

    private static String replaceValue(Pattern anchor, String notice, int value) {
        Matcher m = anchor.matcher(notice);
        if (!m.find()) {
            throw new IllegalStateException("anchor vanished: " + anchor);
        }
        return notice.substring(0, m.start(1)) + value + notice.substring(m.end(1));
    }

    /**
     * Number of chars of {@code s} before {@code end} whose UTF-8 encoding fits in {@code limitBytes},
     * never ending between the two halves of a surrogate pair.
     */
    private static int cutIndex(String s, int end, int limitBytes) {
        long bytes = 0;
        int i = 0;
        while (i < end) {
            int cp = codePointAt(s, i, end);
            int width = utf8Width(cp);
            if (bytes + width > limitBytes) {
                break;
            }
            bytes += width;
            i += Character.charCount(cp);
        }
        return i;
    }

    /**
     * The UTF-8 length of {@code s} as this class measures budgets (a lone surrogate counts 3 bytes),
     * counted by hand because encoding a multi-megabyte output just to learn its size would copy it.
     */
    public static long utf8Length(String s) {
        long bytes = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            bytes += utf8Width(cp);
            i += Character.charCount(cp);
        }
        return bytes;
    }

    /** Whether the UTF-8 length of {@code s[0, end)} is over {@code limit}, read only as far as needed. */
    private static boolean exceeds(String s, int end, long limit) {
        if (3L * end <= limit) {
            // No char takes more than 3 bytes (a surrogate pair 4 for its two).
            return false;
        }
        long bytes = 0;
        int i = 0;
        while (i < end) {
            int cp = codePointAt(s, i, end);
            bytes += utf8Width(cp);
            if (bytes > limit) {
                return true;
            }
            i += Character.charCount(cp);
        }
        return false;
    }

    /** The code point at {@code i} of {@code s[0, end)}: a high surrogate at {@code end - 1} stands alone. */
    private static int codePointAt(String s, int i, int end) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1))) {
            return Character.toCodePoint(c, s.charAt(i + 1));
        }
        return c;
    }

    // A lone surrogate counts as 3 bytes, more than the encoder's 1-byte replacement, so cuts stay within budget.
    private static int utf8Width(int codePoint) {
        if (codePoint < 0x80) {
            return 1;
        }
        if (codePoint < 0x800) {
            return 2;
        }
        return codePoint < 0x10000 ? 3 : 4;
    }

    private static int countNewlines(String s, int from, int to) {
        int n = 0;
        for (int i = s.indexOf('\n', from); i >= 0 && i < to; i = s.indexOf('\n', i + 1)) {
            n++;
        }
        return n;
    }
}
