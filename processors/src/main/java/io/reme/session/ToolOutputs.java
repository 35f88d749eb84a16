package io.reme.session;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.session.SessionCounters.Counter;
import io.reme.tokens.TokenCounter;
import io.reme.toolresult.ToolResultTruncator;
import io.reme.toolresult.TruncationLimits;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The tool outputs of the window: cut to the recent limit when their message is appended (the full
 * output goes to the {@code tool-results} topic), cut again to the old limit once a message without
 * tool results follows, and counted exactly either way. Used by the task's stream thread only.
 */
final class ToolOutputs {
    private static final int MAX_AGING_COUNTS = 1_024;

    private final KeyValueStore<String, StoredMessage> messages;
    private final TruncationLimits limits;
    private final TokenCounter tokens;
    private final SessionOutputs outputs;
    private final ToolResultTruncator truncator = new ToolResultTruncator();
    /**
     * Message key → the counts of its tool outputs' first characters, taken on append (see
     * {@link #countForAging}) and used once, when the outputs age, usually a message later. Only a
     * shortcut: the count is exact with or without it, so it is not stored and starts empty after a
     * restart. Bounded, for sessions that end on a tool output and never age it.
     */
    private final Map<String, TokenCounter.Prefix[]> agingCounts = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TokenCounter.Prefix[]> eldest) {
            return size() > MAX_AGING_COUNTS;
        }
    };

    ToolOutputs(
            KeyValueStore<String, StoredMessage> messages,
            TruncationLimits limits,
            TokenCounter tokens,
            SessionOutputs outputs) {
        this.messages = messages;
        this.limits = limits;
        this.tokens = tokens;
        this.outputs = outputs;
    }

    /**
     * A message as it is stored: its outputs cut to the recent limit ({@code cut} of them), its token
     * count, and whether an output is over the old limit and will be cut again when it ages.
     */
    record Stored(Message message, int cut, int tokens, boolean ages) {}

    /** Cuts and counts a message about to be appended at {@code seq}. */
    Stored onAppend(SessionKey key, long seq, Message message, long timestamp) {
        Cut cut = cut(key, seq, message, limits.recentBytes(), timestamp);
        if (message.hasToolResults() && exceeds(cut.message(), limits.oldBytes())) {
            return new Stored(cut.message(), cut.count(), countForAging(key, seq, cut.message()), true);
        }
        return new Stored(cut.message(), cut.count(), tokens.count(cut.message()), false);
    }

    /** Outputs that left the recent window are cut to the small limit. */
    SessionHeader age(SessionKey key, SessionHeader header, long timestamp) {
        long delta = 0;
        int cut = 0;
        for (long seq : header.window().recentToolSeqs()) {
            StoredMessage stored = messages.get(key.messageKey(seq));
            if (stored == null) {
                continue;
            }
            TokenCounter.Prefix[] known = agingCounts.remove(key.messageKey(seq));
            Cut aged = cut(key, seq, stored.message(), limits.oldBytes(), timestamp);
            if (aged.count() > 0) {
                int count = countAged(aged.message(), known);
                messages.put(key.messageKey(seq), new StoredMessage(seq, count, aged.message()));
                delta += count - stored.tokens();
                cut += aged.count();
            }
        }
        return header.withTokenDelta(delta, List.of()).withCounter(Counter.TRUNCATED_OUTPUTS, cut);
    }

    /** Stable across replays, unique per block: the same input always names the same stored output. */
    static String id(SessionKey key, long seq, int blockIndex) {
        return UUID.nameUUIDFromBytes((key.key() + "/" + seq + "/" + blockIndex).getBytes(StandardCharsets.UTF_8))
                .toString()
                .replace("-", "");
    }

    /**
     * Counts a message whose tool outputs will be cut to the old limit when they age, remembering the
     * counts of each such output's first characters: its cut form is then counted from where they end.
     */
    private int countForAging(SessionKey key, long seq, Message message) {
        int limit = limits.oldBytes();
        List<Block> blocks = message.content();
        TokenCounter.Prefix[] prefixes = new TokenCounter.Prefix[blocks.size()];
        int total = 0;
        for (int i = 0; i < blocks.size(); i++) {
            if (blocks.get(i) instanceof Block.ToolResult result
                    && ToolResultTruncator.exceeds(result.output(), limit)) {
                // The cut keeps at most limit bytes, so at most limit chars.
                TokenCounter.Counted counted = tokens.countRemembering(result.output(), limit);
                prefixes[i] = counted.prefix();
                total += counted.tokens();
            } else {
                total += tokens.count(blocks.get(i));
            }
        }
        agingCounts.put(key.messageKey(seq), prefixes);
        return total;
    }

    /** Counts an aged message, each cut output from its remembered prefix if there is one (null: none). */
    private int countAged(Message message, TokenCounter.Prefix[] known) {
        List<Block> blocks = message.content();
        int total = 0;
        for (int i = 0; i < blocks.size(); i++) {
            if (known != null
                    && i < known.length
                    && known[i] != null
                    && blocks.get(i) instanceof Block.ToolResult result) {
                total += tokens.count(result.output(), known[i]);
            } else {
                total += tokens.count(blocks.get(i));
            }
        }
        return total;
    }

    private record Cut(Message message, int count) {}

    private Cut cut(SessionKey key, long seq, Message message, int limit, long timestamp) {
        Message result = message;
        int count = 0;
        List<Block> blocks = message.content();
        for (int i = 0; i < blocks.size(); i++) {
            if (!(blocks.get(i) instanceof Block.ToolResult block)) {
                continue;
            }
            Optional<String> cut;
            if (!ToolResultTruncator.exceeds(block.output(), limit)) {
                // Within the limit (most outputs, on append): nothing to cut, so no stored ID to derive.
                cut = Optional.empty();
            } else if (ToolResultTruncator.isTruncated(block.output())) {
                cut = truncator.retruncate(block.output(), limit);
            } else {
                String id = id(key, seq, i);
                cut = truncator.truncate(block.output(), limit, ToolResultTruncator.storedPath(id));
                if (cut.isPresent()) {
                    outputs.toolResult(key.tenant(), id, block.output(), timestamp);
                }
            }
            if (cut.isPresent()) {
                result = result.withBlock(i, block.withOutput(cut.get()));
                count++;
            }
        }
        return new Cut(result, count);
    }

    private static boolean exceeds(Message message, int limit) {
        for (Block block : message.content()) {
            if (block instanceof Block.ToolResult result && ToolResultTruncator.exceeds(result.output(), limit)) {
                return true;
            }
        }
        return false;
    }
}
