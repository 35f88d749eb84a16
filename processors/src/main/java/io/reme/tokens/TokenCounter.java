package io.reme.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import io.reme.message.Block;
import io.reme.message.Message;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Counts a message's tokens the way the model will see them: text, thinking, a tool call's name and
 * arguments, a tool's output, and a fixed cost per image. Role and framing overhead is not counted.
 * Special-token sequences in user text are counted as ordinary text, never interpreted. Thread-safe.
 */
public final class TokenCounter {
    private final Encoding encoding;
    private final int imageTokens;

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
                    + Arrays.stream(EncodingType.values()).map(EncodingType::getName).toList());
        }
        return new TokenCounter(Encodings.newLazyEncodingRegistry().getEncoding(type.get()), imageTokens);
    }

    public String encodingName() {
        return encoding.getName();
    }

    public int count(String text) {
        return text == null || text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
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
