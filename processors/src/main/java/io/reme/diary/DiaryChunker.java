package io.reme.diary;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a Markdown document into overlapping chunks for search: about {@code maxChars} characters
 * each, the next one starting about {@code overlapChars} before the previous one ended, always on
 * line boundaries, and preferring to start a chunk at a heading. Line numbers are 1-based and
 * inclusive, so a hit can point to {@code memory/2026-11-28.md:12-30}. Pure and deterministic: the
 * same document always gives the same chunks.
 */
public final class DiaryChunker {
    public static final int DEFAULT_MAX_CHARS = 1600;
    public static final int DEFAULT_OVERLAP_CHARS = 320;

    private final int maxChars;
    private final int overlapChars;

    public DiaryChunker(int maxChars, int overlapChars) {
        if (maxChars <= 0 || overlapChars < 0 || overlapChars >= maxChars) {
            throw new IllegalArgumentException(
                    "need 0 <= overlap < max, got max " + maxChars + ", overlap " + overlapChars);
        }
        this.maxChars = maxChars;
        this.overlapChars = overlapChars;
    }

    public static DiaryChunker defaults() {
        return new DiaryChunker(DEFAULT_MAX_CHARS, DEFAULT_OVERLAP_CHARS);
    }

    /** One chunk: its text and the lines it spans. */
    public record Chunk(int index, String text, int startLine, int endLine) {}

    public List<Chunk> chunk(String document) {
        List<Chunk> chunks = new ArrayList<>();
        if (document == null || document.isBlank()) {
            return chunks;
        }
        String[] lines = document.split("\n", -1);
        int end = lines.length;
        while (end > 0 && lines[end - 1].isBlank()) {
            end--;
        }
        int start = 0;
        while (start < end) {
            while (start < end && lines[start].isBlank()) {
                start++;
            }
            if (start >= end) {
                break;
            }
            int last = extend(lines, start, end);
            chunks.add(new Chunk(chunks.size(), join(lines, start, last), start + 1, last + 1));
            if (last + 1 >= end) {
                break;
            }
            start = nextStart(lines, start, last);
        }
        return chunks;
    }

    /** The last line index of a chunk starting at {@code start}: as many whole lines as fit, at least one. */
    private int extend(String[] lines, int start, int end) {
        int size = lines[start].length();
        int last = start;
        int lastBeforeHeading = -1;
        while (last + 1 < end && size + 1 + lines[last + 1].length() <= maxChars) {
            last++;
            size += 1 + lines[last].length();
            if (isHeading(lines[last]) && last > start) {
                lastBeforeHeading = last - 1;
            }
        }
        // Prefer to end just before a heading when the chunk still holds a fair share of the budget.
        if (last + 1 < end && lastBeforeHeading > start && length(lines, start, lastBeforeHeading) >= maxChars / 4) {
            return lastBeforeHeading;
        }
        return last;
    }

    /** Where the next chunk starts: back about {@code overlapChars} from the end, but always forward. */
    private int nextStart(String[] lines, int start, int last) {
        int next = last + 1;
        int overlap = 0;
        while (next - 1 > start && overlap + lines[next - 1].length() + 1 <= overlapChars) {
            next--;
            overlap += lines[next].length() + 1;
        }
        if (isHeading(lines[last + 1 < lines.length ? last + 1 : last])) {
            // The next chunk opens with a section heading: no overlap into the previous section.
            return last + 1;
        }
        return Math.max(next, start + 1);
    }

    private static boolean isHeading(String line) {
        return line.startsWith("#");
    }

    private static int length(String[] lines, int from, int to) {
        int size = 0;
        for (int i = from; i <= to; i++) {
            size += lines[i].length() + (i > from ? 1 : 0);
        }
        return size;
    }

    private static String join(String[] lines, int from, int to) {
        StringBuilder text = new StringBuilder();
        for (int i = from; i <= to; i++) {
            if (i > from) {
                text.append('\n');
            }
            text.append(lines[i]);
        }
        return text.toString();
    }
}
