package io.reme.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import io.reme.message.Block;
import io.reme.message.Message;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts a message's tokens the way the model will see them: text, thinking, a tool call's name and
 * arguments, a tool's output, and a fixed cost per image. Role and framing overhead is not counted.
 * Special-token sequences in user text are counted as ordinary text, never interpreted. Thread-safe.
 *
 * <p>Counting is the session processor's largest CPU cost, and most of it is the encodings'
 * pre-tokenising regular expression. Text is therefore cut into words wherever a space stands
 * between two ASCII letters: in every supported encoding a piece holding a letter ends at the first
 * non-letter, and the next piece starts at the space whatever came before (the patterns have no
 * look-behind), so the pieces and the count are exactly those of the whole text. Short words are
 * counted once and remembered.
 */
public final class TokenCounter {
    /** Words longer than this are counted every time; longer strings rarely repeat. */
    private static final int MAX_CACHED_CHARS = 24;
    /** A bound on the remembered words (tens of bytes each); the cache starts over when it is full. */
    private static final int MAX_CACHED_WORDS = 100_000;

    private final Encoding encoding;
    private final int imageTokens;
    private final Map<String, Integer> words = new ConcurrentHashMap<>();

    public TokenCounter(Encoding encoding, int imageTokens) {
        if (imageTokens < 0) {
            throw new IllegalArgumentException("imageTokens must be >= 0");
        }
        this.encoding = encoding;
        this.imageTokens = imageTokens;
    }

    /** Creates a counter for a jtokkit encoding name such as {@code o200k_base} or {@code cl100k_base}. */
    public static TokenCounter forEncoding(String encodingName, int imageTokens) {
        Optional<EncodingType> type = EncodingType.fromName(encodingName.toLowerCase(Locale.ROOT));
        if (type.isEmpty()) {
            throw new IllegalArgumentException("unknown token encoding '" + encodingName + "'; known: "
                    + Arrays.stream(EncodingType.values())
                            .map(EncodingType::getName)
                            .toList());
        }
        return new TokenCounter(Encodings.newLazyEncodingRegistry().getEncoding(type.get()), imageTokens);
    }

    public String encodingName() {
        return encoding.getName();
    }

    public int count(String text) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        return countFrom(text, 0, null);
    }

    /**
     * The counts of a text at some of its word cuts within its first characters, taken while counting
     * it: a later text that starts with the same characters (a tool output's shorter excerpt) is then
     * counted from the last cut they share, not from its start. {@code counts[k]} is the count of
     * {@code head[0, ends[k])}.
     */
    public record Prefix(String head, int[] ends, int[] counts) {}

    /** A text's count, and its {@link Prefix} over at most its first {@code maxChars} characters. */
    public record Counted(int tokens, Prefix prefix) {}

    /** Chars between the cuts a {@link Prefix} keeps: what is left to count from the last one. */
    private static final int PREFIX_STEP = 64;

    /** Counts {@code text} as {@link #count(String)} does, remembering its counts at cuts within {@code maxChars}. */
    public Counted countRemembering(String text, int maxChars) {
        if (text == null || text.isEmpty() || maxChars < 2) {
            return new Counted(count(text), new Prefix("", new int[0], new int[0]));
        }
        String head = text.substring(0, Math.min(text.length(), maxChars));
        Marks marks = new Marks(head.length());
        int total = countFrom(text, 0, marks);
        return new Counted(total, marks.prefix(head));
    }

    /**
     * Counts {@code text} as {@link #count(String)} does, starting from the last cut of {@code known}
     * that the text shares with it. Exact whatever the text: the shared characters are compared, and the
     * pieces before a shared cut are the same in both texts (a cut depends on the characters on its
     * either side only).
     */
    public int count(String text, Prefix known) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        int shared = Math.min(text.length(), known.head().length());
        for (int k = known.ends().length - 1; k >= 0; k--) {
            int end = known.ends()[k];
            // The cut at end needs the letters on its either side, so both texts must agree up to end + 1.
            if (end + 2 <= shared) {
                if (text.regionMatches(0, known.head(), 0, end + 2)) {
                    return known.counts()[k] + countFrom(text, end, null);
                }
                break;
            }
        }
        return count(text);
    }

    /**
     * The count of {@code text[from..]}, where {@code from} is 0 or a cut: the pieces are the text's
     * words, each starting at a space that stands between two ASCII letters.
     */
    private int countFrom(String text, int from, Marks marks) {
        int total = 0;
        int start = from;
        int last = text.length() - 1;
        for (int i = from + 1; i < last; i++) {
            if (text.charAt(i) == ' ' && isAsciiLetter(text.charAt(i - 1)) && isAsciiLetter(text.charAt(i + 1))) {
                total += countWord(text.substring(start, i));
                start = i;
                if (marks != null) {
                    marks.cut(i, total);
                }
            }
        }
        return total + countWord(text.substring(start));
    }

    /** The cuts a {@link Prefix} keeps, at least {@link #PREFIX_STEP} chars apart, within its head. */
    private static final class Marks {
        private final int headLength;
        private int[] ends = new int[8];
        private int[] counts = new int[8];
        private int size;

        Marks(int headLength) {
            this.headLength = headLength;
        }

        void cut(int end, int count) {
            // Kept only if a text sharing the whole head can be checked past it (see count(String, Prefix)).
            if (end + 2 > headLength || (size > 0 && end - ends[size - 1] < PREFIX_STEP)) {
                return;
            }
            if (size == ends.length) {
                ends = Arrays.copyOf(ends, size * 2);
                counts = Arrays.copyOf(counts, size * 2);
            }
            ends[size] = end;
            counts[size] = count;
            size++;
        }

        Prefix prefix(String head) {
            return new Prefix(head, Arrays.copyOf(ends, size), Arrays.copyOf(counts, size));
        }
    }

    private int countWord(String word) {
        if (word.length() > MAX_CACHED_CHARS) {
            return encoding.countTokensOrdinary(word);
        }
        Integer known = words.get(word);
        if (known != null) {
            return known;
        }
        int count = encoding.countTokensOrdinary(word);
        if (words.size() >= MAX_CACHED_WORDS) {
            words.clear();
        }
        words.put(word, count);
        return count;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    public int count(Block block) {
        if (block instanceof Block.Text text) {
            return count(text.text());
        } else if (block instanceof Block.Thinking thinking) {
            return count(thinking.thinking());
        } else if (block instanceof Block.ToolUse use) {
            return count(use.name()) + count(use.input());
        } else if (block instanceof Block.ToolResult result) {
            return count(result.output());
        } else if (block instanceof Block.Image) {
            return imageTokens;
        }
        throw new IllegalStateException("unknown block " + block.getClass());
    }

    public int count(Message message) {
        int total = 0;
        for (Block block : message.content()) {
            total += count(block);
        }
        return total;
    }
}
