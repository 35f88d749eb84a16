package io.reme.toolresult;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Checks the byte budget, character safety, line arithmetic and notice contract of {@link ToolResultTruncator}. */
class ToolResultTruncatorTest {

    private static final String PATH = "tool_result/call_42.txt";
    private static final int SLACK = ToolResultTruncator.SLACK_BYTES;

    private final ToolResultTruncator truncator = new ToolResultTruncator();

    // ---- thresholds -------------------------------------------------------------------------

    @Test
    void nothingToDoForNullEmptyOrNonPositiveLimit() {
        String big = lines(500);
        assertEquals(Optional.empty(), truncator.truncate(null, 100, PATH));
        assertEquals(Optional.empty(), truncator.truncate("", 100, PATH));
        assertEquals(Optional.empty(), truncator.truncate(big, 0, PATH));
        assertEquals(Optional.empty(), truncator.truncate(big, -5, PATH));
        // Control: the same text with a positive limit is truncated, so the empties above are not vacuous.
        assertTrue(truncator.truncate(big, 100, PATH).isPresent());
    }

    @Test
    void belowLimitPlusSlackIsUnchanged() {
        String text = lines(100); // 1000 bytes
        assertEquals(Optional.empty(), truncator.truncate(text, 1000 - SLACK + 1, PATH));
        assertEquals(Optional.empty(), truncator.truncate(text, 2000, PATH));
    }

    @Test
    void exactlyLimitPlusSlackIsUnchangedOneMoreByteTruncates() {
        int limit = 300;
        String exact = lines(40).substring(0, limit + SLACK);
        assertEquals(limit + SLACK, utf8(exact).length);
        assertEquals(Optional.empty(), truncator.truncate(exact, limit, PATH));

        Optional<String> over = truncator.truncate(exact + "x", limit, PATH);
        assertTrue(over.isPresent());
        assertTrue(ToolResultTruncator.isTruncated(over.get()));
    }

    @Test
    void thresholdCountsUtf8BytesNotChars() {
        int limit = 300;
        // 201 chars but 400 bytes: at the threshold only when measured in bytes.
        String exact = "é".repeat(199) + "\n" + "x";
        assertEquals(limit + SLACK, utf8(exact).length);
        assertEquals(Optional.empty(), truncator.truncate(exact, limit, PATH));
        String oneMore = exact + "x";
        assertTrue(truncator.truncate(oneMore, limit, PATH).isPresent());
    }

    // ---- excerpt ----------------------------------------------------------------------------

    @Test
    void excerptFitsTheLimitAndUsesIt() {
        String text = lines(1000);
        for (int limit : new int[] {1, 7, 95, 100, 1234, 5000}) {
            String excerpt = parse(truncator.truncate(text, limit, PATH).orElseThrow()).excerpt;
            int bytes = utf8(excerpt).length;
            assertTrue(bytes <= limit, "excerpt " + bytes + " bytes over limit " + limit);
            assertEquals(limit, bytes, "ASCII text should be cut exactly at the limit");
            assertTrue(text.startsWith(excerpt));
        }
    }

    @Test
    void multiByteCharactersAreNeverSplit() {
        String cjk = "日本語のテキスト\n".repeat(200);
        String emoji = "😀🚀 ok 🎉\n".repeat(200);
        String mixed = "a日😀é\n".repeat(300);
        for (String text : new String[] {cjk, emoji, mixed}) {
            for (int l = 200; l < 212; l++) {
                int limit = l;
                String excerpt = parse(truncator.truncate(text, limit, PATH).orElseThrow()).excerpt;
                byte[] bytes = strictUtf8(excerpt, () -> "limit " + limit);
                assertTrue(bytes.length <= limit);
                // Backing off to a boundary must not lose more than one character's worth of bytes.
                assertTrue(bytes.length > limit - 4, "cut too early: " + bytes.length + " for " + limit);
                assertBytePrefix(utf8(text), bytes, () -> "limit " + limit);
                assertTrue(text.startsWith(excerpt));
            }
        }
    }

    /**
     * A Chinese output is cut like any other, at its byte budget and not back at a 。: the excerpt is a
     * window onto the stored output, and the line a sentence was cut in is the line reading goes on
     * from, so no sentence is lost to the cut.
     */
    @Test
    void aChineseOutputIsAByteWindowAndReadingGoesOnFromTheLineItWasCutIn() {
        StringBuilder text = new StringBuilder();
        for (int line = 1; line <= 60; line++) {
            text.append("第").append(line).append("行：消费者组重平衡了。偏移量没有提交！为什么？\n");
        }
        String output = text.toString();
        for (int limit = 200; limit < 1_200; limit += 37) {
            int budget = limit;
            Parsed p = parse(truncator.truncate(output, limit, PATH).orElseThrow());
            byte[] bytes = strictUtf8(p.excerpt, () -> "limit " + budget);
            assertTrue(bytes.length <= limit && bytes.length > limit - 3, () -> bytes.length + " bytes for " + budget);
            assertTrue(output.startsWith(p.excerpt));
            int cutLineStart = p.excerpt.lastIndexOf('\n') + 1;
            assertEquals(lineStart(output, p.nextLine), cutLineStart, () -> "limit " + budget + ": " + p.notice);
            assertTrue(output.startsWith("第" + p.nextLine + "行：", cutLineStart), () -> "limit " + budget);
        }
    }

    // ---- line arithmetic --------------------------------------------------------------------

    @Test
    void nextLineIsTheLineTheExcerptEndsIn() {
        String text = lines(100); // "line 0001\n" ... 10 bytes per line, 101 lines counting the empty tail
        Parsed p = parse(truncator.truncate(text, 95, PATH).orElseThrow());
        assertEquals("line 0001\n".length() * 9 + "line ".length(), p.excerpt.length());
        assertEquals(101, p.totalLines);
        assertEquals(1, p.startLine);
        assertEquals(95, p.coveredBytes);
        assertEquals(10, p.nextLine, "9 full lines plus part of line 10: line 10 is re-read");
    }

    @Test
    void excerptEndingOnLineBoundaryContinuesWithTheNextLine() {
        Parsed p = parse(truncator.truncate(lines(100), 100, PATH).orElseThrow());
        assertTrue(p.excerpt.endsWith("line 0010\n"));
        assertEquals(11, p.nextLine);
    }

    @Test
    void totalLinesCountsNewlinesPlusOne() {
        String noTrailingNewline = lines(50) + "last line without newline";
        assertEquals(51, parse(truncator.truncate(noTrailingNewline, 30, PATH).orElseThrow()).totalLines);
    }

    @Test
    void firstLineLongerThanLimitStillMovesForward() {
        String text = "x".repeat(5000) + "\nsecond\nthird";
        Parsed p = parse(truncator.truncate(text, 1000, PATH).orElseThrow());
        assertEquals("x".repeat(1000), p.excerpt);
        assertEquals(3, p.totalLines);
        assertEquals(2, p.nextLine);
    }

    @Test
    void aSingleLongLineIsCutWithANoticeNamingTheStoredOutputAndCutAgainAsOne() {
        // Without a notice the reader never learns where the rest is, and a later re-cut took the excerpt for
        // a fresh output and stored it over the full one.
        String text = "y".repeat(200_016);
        String result = truncator.truncate(text, 102_400, PATH).orElseThrow();
        assertTrue(result.startsWith("y".repeat(102_400)), "the excerpt is the first bytes");
        assertTrue(ToolResultTruncator.isTruncated(result), result.substring(102_400));
        assertTrue(result.contains(PATH));
        String aged = truncator.retruncate(result, 3000).orElseThrow();
        assertTrue(ToolResultTruncator.isTruncated(aged));
        assertTrue(aged.contains(PATH), "still names the stored output");
        assertTrue(aged.getBytes(StandardCharsets.UTF_8).length < 3_400, aged.length() + " chars");
    }

    // ---- notice -----------------------------------------------------------------------------

    @Test
    void noticeCarriesPathAndEachAnchorOnce() {
        String result = truncator.truncate(lines(1000), 2048, PATH).orElseThrow();
        int markerAt = result.indexOf(ToolResultTruncator.MARKER);
        assertTrue(markerAt > 0);
        assertEquals('\n', result.charAt(markerAt - 1), "marker must start on its own line");
        String notice = result.substring(markerAt + ToolResultTruncator.MARKER.length());
        assertTrue(notice.startsWith("\n"));
        String[] noticeLines = notice.substring(1).split("\n", -1);
        assertEquals(4, noticeLines.length, notice);

        assertEquals(1, occurrences(notice, PATH), notice);
        assertEquals(1, occurrences(notice, "starts at line 1"), notice);
        assertEquals(1, occurrences(notice, "covers the next 2048 bytes"), notice);
        assertEquals(1, occurrences(notice, "start_line="), notice);
        assertEquals(1, occurrences(result, ToolResultTruncator.MARKER));
        assertTrue(notice.contains("start_line=" + parse(result).nextLine));
    }

    @Test
    void storedPathFollowsTheSinkLayout() {
        assertEquals("tool_result/abc-123.txt", ToolResultTruncator.storedPath("abc-123"));
        assertThrows(IllegalArgumentException.class, () -> ToolResultTruncator.storedPath(""));
        assertThrows(IllegalArgumentException.class, () -> ToolResultTruncator.storedPath(null));
        assertThrows(IllegalArgumentException.class, () -> ToolResultTruncator.storedPath("../etc/passwd"));
        assertThrows(IllegalArgumentException.class, () -> ToolResultTruncator.storedPath("a\nb"));
    }

    @Test
    void isTruncatedNeedsAReadableNotice() {
        String cut = truncator.truncate(lines(2_000), 1_000, PATH).orElseThrow();
        assertTrue(ToolResultTruncator.isTruncated(cut));
        assertFalse(ToolResultTruncator.isTruncated("abc\n" + ToolResultTruncator.MARKER + "\nnotice"));
        assertFalse(ToolResultTruncator.isTruncated("abc"));
        assertFalse(ToolResultTruncator.isTruncated(null));
    }

    @Test
    void outputThatMerelyContainsTheMarkerIsStillCut() {
        String search = "match: " + ToolResultTruncator.MARKER + "\n" + lines(5_000);
        String cut = truncator.truncate(search, 1_000, PATH).orElseThrow();
        assertTrue(utf8(cut).length < 1_500, "a huge output never stays whole");
        assertTrue(cut.contains(PATH));
        String aged = truncator.retruncate(cut, 300).orElseThrow();
        assertTrue(aged.startsWith("match: "), "the excerpt keeps the output's own marker text");
        assertTrue(aged.contains(PATH));
    }

    @Test
    void aNoticeInTheToolsOwnOutputFollowedByMoreOutputIsNotTakenForOurs() {
        String fake =
                truncator.truncate(lines(2_000), 1_000, "tool_result/fake.txt").orElseThrow();
        String hostile = fake + "\n" + lines(5_000);
        assertFalse(ToolResultTruncator.isTruncated(hostile), "a notice is always the last thing");
        String cut = truncator.truncate(hostile, 1_000, PATH).orElseThrow();
        assertTrue(utf8(cut).length < 1_500, "a huge output never stays whole");
        assertEquals(PATH, parse(cut).path, "cut as new, pointing at its own stored copy");
    }

    @Test
    void anIdTooLongForANoticeIsRefused() {
        String longest = "a".repeat(ToolResultTruncator.MAX_ID_LENGTH);
        assertEquals("tool_result/" + longest + ".txt", ToolResultTruncator.storedPath(longest));
        assertThrows(IllegalArgumentException.class, () -> ToolResultTruncator.storedPath(longest + "a"));
        String cut = truncator
                .truncate(lines(2_000), 1_000, ToolResultTruncator.storedPath(longest))
                .orElseThrow();
        assertTrue(ToolResultTruncator.isTruncated(cut), "the longest notice is still found");
        assertTrue(truncator.retruncate(cut, 300).isPresent());
    }

    // ---- re-truncation ----------------------------------------------------------------------

    @Test
    void agingOutShrinksToOldLimitKeepingPathAndRewritingAnchors() {
        String original = lines(20_000); // 200 000 bytes
        TruncationLimits limits = TruncationLimits.defaults();
        String recent = truncator.truncate(original, limits.recentBytes(), PATH).orElseThrow();
        Parsed before = parse(recent);

        String old = truncator.retruncate(recent, limits.oldBytes()).orElseThrow();
        Parsed after = parse(old);
        assertTrue(utf8(after.excerpt).length <= 3000);
        assertTrue(original.startsWith(after.excerpt));
        assertEquals(PATH, after.path);
        assertEquals(before.totalLines, after.totalLines);
        assertEquals(1, after.startLine);
        assertEquals(3000, after.coveredBytes);
        assertEquals(301, after.nextLine, "3000 bytes are exactly 300 full lines");
        assertEquals(1, occurrences(old, ToolResultTruncator.MARKER));
        // Only the two numbers change; the wording around them is kept.
        assertEquals(
                before.notice.replace("102400", "3000").replace("start_line=" + before.nextLine, "start_line=301"),
                after.notice);
    }

    @Test
    void truncateDelegatesToRetruncateForMarkedText() {
        String recent = truncator.truncate(lines(20_000), 102_400, PATH).orElseThrow();
        String viaTruncate =
                truncator.truncate(recent, 3000, "tool_result/other.txt").orElseThrow();
        assertEquals(truncator.retruncate(recent, 3000).orElseThrow(), viaTruncate);
        assertEquals(PATH, parse(viaTruncate).path, "the stored path of a truncated output never changes");
    }

    @Test
    void retruncationIsIdempotent() {
        String recent = truncator.truncate(lines(20_000), 102_400, PATH).orElseThrow();
        String old = truncator.retruncate(recent, 3000).orElseThrow();
        assertEquals(Optional.empty(), truncator.retruncate(old, 3000));
        assertEquals(Optional.empty(), truncator.truncate(old, 3000, PATH));
        // A larger limit never grows an excerpt back.
        assertEquals(Optional.empty(), truncator.retruncate(old, 102_400));
    }

    @Test
    void retruncationWithinSlackIsUnchanged() {
        String recent = truncator.truncate(lines(200), 1000, PATH).orElseThrow();
        assertEquals(Optional.empty(), truncator.retruncate(recent, 1000 - SLACK));
        assertTrue(truncator.retruncate(recent, 1000 - SLACK - 1).isPresent());
    }

    @Test
    void retruncationCountsFromTheExcerptsStartLine() {
        String excerpt = lines(500);
        String text = excerpt + "\n" + ToolResultTruncator.MARKER + "\n"
                + "The complete output (9000 lines) is stored in " + PATH + "\n"
                + "This excerpt starts at line 41 and covers the next 5000 bytes.\n"
                + "Continue with start_line=541.";
        String result = truncator.retruncate(text, 95).orElseThrow();
        assertTrue(result.startsWith(excerpt.substring(0, 95) + "\n" + ToolResultTruncator.MARKER));
        assertTrue(result.contains("starts at line 41 "), result);
        assertTrue(result.contains("covers the next 95 bytes"), result);
        assertTrue(result.contains("start_line=50."), "41 + 9 full lines: " + result);
    }

    @Test
    void damagedNoticeIsLeftUnchanged() {
        String good = truncator.truncate(lines(20_000), 102_400, PATH).orElseThrow();
        assertTrue(truncator.retruncate(good, 3000).isPresent(), "control: the undamaged notice is rewritten");

        String[] damaged = {
            good.replace("starts at line", "begins at line"),
            good.replace("covers the next", "spans"),
            good.replace("start_line=", "line="),
            good.replace("starts at line 1", "starts at line one"),
            good.replace("starts at line 1", "starts at line 0"),
            good.replace("covers the next 102400", "covers the next 99999999999"),
            good.replaceFirst("start_line=\\d+", "start_line=x"),
            good.replace(ToolResultTruncator.MARKER, "<<<CUT>>>"),
        };
        for (String text : damaged) {
            assertNotEquals(good, text, "damage did not apply");
            assertEquals(Optional.empty(), assertDoesNotThrow(() -> truncator.retruncate(text, 3000)));
        }
        assertEquals(Optional.empty(), truncator.retruncate(null, 3000));
        assertEquals(Optional.empty(), truncator.retruncate(good, 0));
    }

    // ---- limits -----------------------------------------------------------------------------

    @Test
    void limitsHaveDefaultsAndValidate() {
        TruncationLimits d = TruncationLimits.defaults();
        assertEquals(102_400, d.recentBytes());
        assertEquals(3000, d.oldBytes());
        assertEquals(new TruncationLimits(500, 500), new TruncationLimits(500, 500));
        assertThrows(IllegalArgumentException.class, () -> new TruncationLimits(100, 0));
        assertThrows(IllegalArgumentException.class, () -> new TruncationLimits(100, -1));
        assertThrows(IllegalArgumentException.class, () -> new TruncationLimits(99, 100));
    }

    // ---- randomized -------------------------------------------------------------------------

    @Test
    void randomTextsKeepPrefixLineAndGapInvariants() {
        long seed = Long.getLong("truncator.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 2000; round++) {
            String text = randomText(random);
            int limit = 1 + random.nextInt(3000);
            String where = "seed=" + seed + " round=" + round + " limit=" + limit;
            Optional<String> result = truncator.truncate(text, limit, PATH);

            if (result.isEmpty()) {
                assertTrue(utf8(text).length <= limit + SLACK, () -> where + ": oversized text left whole");
                continue;
            }
            assertTrue(utf8(text).length > limit + SLACK, () -> where + ": small text was cut");
            assertTrue(ToolResultTruncator.isTruncated(result.get()), () -> where + ": a cut without its notice");
            Parsed first = parse(result.get());
            checkNotice(text, first, 1, limit, () -> where);

            int smaller = 1 + random.nextInt(limit);
            String where2 = where + " smaller=" + smaller;
            Optional<String> aged = truncator.retruncate(result.get(), smaller);
            if (aged.isEmpty()) {
                assertTrue(utf8(first.excerpt).length <= smaller + SLACK, () -> where2 + ": not shrunk");
                continue;
            }
            Parsed second = parse(aged.get());
            checkNotice(text, second, 1, smaller, () -> where2);
            assertEquals(PATH, second.path, () -> where2);
            assertEquals(first.totalLines, second.totalLines, () -> where2);
            assertTrue(second.nextLine <= first.nextLine, () -> where2 + ": shrinking moved the reader forward");
            assertEquals(
                    Optional.empty(), truncator.retruncate(aged.get(), smaller), () -> where2 + ": not idempotent");
        }
    }

    private static void checkNotice(String text, Parsed p, int startLine, int limit, Supplier<String> where) {
        checkExcerpt(text, p.excerpt, limit, where);
        assertEquals(PATH, p.path, where);
        assertEquals(startLine, p.startLine, where);
        assertEquals(limit, p.coveredBytes, where);
        assertEquals(count(text, '\n') + 1, p.totalLines, where);
        if (p.totalLines == 1) {
            // One line: nothing to resume from but the line itself; the notice is there to name the file.
            assertEquals(1, p.nextLine, where);
            return;
        }
        assertTrue(
                p.nextLine >= 2 && p.nextLine <= p.totalLines,
                () -> where.get() + ": next line " + p.nextLine + " outside 2.." + p.totalLines);

        int newlines = count(p.excerpt, '\n');
        int endLine = startLine + newlines; // the line the excerpt stops in
        assertTrue(p.nextLine == endLine || p.nextLine == endLine + 1, where);
        if (newlines > 0) {
            // No gap: reading from the next line starts at or before the first byte the excerpt left out.
            assertEquals(endLine, p.nextLine, where);
            assertTrue(lineStart(text, p.nextLine) <= p.excerpt.length(), where);
        } else {
            // The excerpt never finished its first line; the reader still has to move forward.
            assertEquals(startLine + 1, p.nextLine, where);
        }
    }

    private static void checkExcerpt(String text, String excerpt, int limit, Supplier<String> where) {
        byte[] bytes = strictUtf8(excerpt, where);
        assertTrue(bytes.length <= limit, () -> where.get() + ": excerpt has " + bytes.length + " bytes");
        assertBytePrefix(utf8(text), bytes, where);
        assertTrue(text.startsWith(excerpt), where);
        if (excerpt.length() < text.length()) {
            int nextChar = text.codePointAt(excerpt.length());
            assertTrue(
                    bytes.length + utf8(new String(Character.toChars(nextChar))).length > limit,
                    () -> where.get() + ": the next character would still have fit");
        }
    }

    private static String randomText(Random random) {
        int codePoints = random.nextInt(4000);
        // Vary the line density so some texts are one long line and some are mostly newlines.
        double newlineRate = random.nextInt(4) == 0 ? 0 : random.nextDouble() * 0.3;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < codePoints; i++) {
            if (random.nextDouble() < newlineRate) {
                sb.append('\n');
                continue;
            }
            switch (random.nextInt(4)) {
                case 0 -> sb.append((char) ('a' + random.nextInt(26)));
                case 1 -> sb.appendCodePoint(0x00E0 + random.nextInt(0x20)); // 2 bytes
                case 2 -> sb.appendCodePoint(0x4E00 + random.nextInt(0x5000)); // CJK, 3 bytes
                default -> sb.appendCodePoint(0x1F600 + random.nextInt(0x50)); // emoji, 4 bytes
            }
        }
        return sb.toString();
    }

    // ---- parsing the output -----------------------------------------------------------------

    private record Parsed(
            String excerpt,
            String notice,
            String path,
            int totalLines,
            int startLine,
            int coveredBytes,
            int nextLine) {}

    private static final Pattern PATH_IN_NOTICE = Pattern.compile("(tool_result/\\S+\\.txt)");
    private static final Pattern TOTAL = Pattern.compile("\\((\\d+) lines\\)");
    private static final Pattern START = Pattern.compile("starts at line (\\d+)");
    private static final Pattern COVERS = Pattern.compile("covers the next (\\d+) bytes");
    private static final Pattern NEXT = Pattern.compile("start_line=(\\d+)");

    private static Parsed parse(String result) {
        String separator = "\n" + ToolResultTruncator.MARKER + "\n";
        int at = result.indexOf(separator);
        if (at < 0) {
            fail("no notice in: " + abbreviate(result));
        }
        String notice = result.substring(at + separator.length());
        return new Parsed(
                result.substring(0, at),
                notice,
                group(PATH_IN_NOTICE, notice),
                number(TOTAL, notice),
                number(START, notice),
                number(COVERS, notice),
                number(NEXT, notice));
    }

    private static int number(Pattern p, String notice) {
        return Integer.parseInt(group(p, notice));
    }

    private static String group(Pattern p, String notice) {
        Matcher m = p.matcher(notice);
        if (!m.find()) {
            fail("notice lacks " + p + ": " + notice);
        }
        return m.group(1);
    }

    // ---- small test fixtures ----------------------------------------------------------------

    /** {@code n} lines of exactly 10 bytes each: "line 0001\n", "line 0002\n", ... */
    private static String lines(int n) {
        StringBuilder sb = new StringBuilder(n * 10);
        for (int i = 1; i <= n; i++) {
            sb.append(String.format("line %04d", i % 10_000)).append('\n');
        }
        return sb.toString();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Encodes with a strict encoder, so a split surrogate pair fails instead of becoming '?'. */
    private static byte[] strictUtf8(String s, Supplier<String> where) {
        try {
            ByteBuffer buf = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(s));
            return Arrays.copyOfRange(buf.array(), buf.arrayOffset(), buf.arrayOffset() + buf.limit());
        } catch (CharacterCodingException e) {
            return fail(where.get() + ": excerpt is not valid UTF-8", e);
        }
    }

    private static void assertBytePrefix(byte[] whole, byte[] prefix, Supplier<String> where) {
        assertTrue(prefix.length <= whole.length, where);
        assertArrayEquals(Arrays.copyOf(whole, prefix.length), prefix, where);
    }

    private static int lineStart(String text, int line) {
        int at = 0;
        for (int l = 1; l < line; l++) {
            at = text.indexOf('\n', at) + 1;
        }
        return at;
    }

    private static int occurrences(String haystack, String needle) {
        int n = 0;
        for (int at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }

    private static int count(String s, char c) {
        return (int) s.chars().filter(ch -> ch == c).count();
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
