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
        int total = 0;
        int start = 0;
        int last = text.length() - 1;
        for (int i = 1; i < last; i++) {
            if (text.charAt(i) == ' ' && isAsciiLetter(text.charAt(i - 1)) && isAsciiLetter(text.charAt(i + 1))) {
                total += countWord(text.substring(start, i));
                start = i;
            }
        }
        return total + countWord(text.substring(start));
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
