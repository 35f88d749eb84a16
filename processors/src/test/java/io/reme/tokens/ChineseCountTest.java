package io.reme.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import io.reme.toolresult.ToolResultTruncator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Chinese has no spaces for the counter to cut at, full-width punctuation and runs of letters that
 * run straight into Latin words; its count must still be the encoding's own, both counted whole and
 * counted from the prefix remembered for a tool output that is later cut to a byte budget.
 */
class ChineseCountTest {
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();
    private static final String PARAGRAPH = "我们把消费者的会话超时调到了四十五秒。为什么重平衡还是每小时发生两次？终于找到原因了！"
            + "他说：“先别改生产环境的配置。”日志里有CommitFailedException和 max.poll.interval.ms 的提示，"
            + "明天上午十点和运维团队一起复盘「订单服务」的事故、数据保留七天（按主题配置）。"
            + "用 Kafka Streams 处理，写进 RocksDB 和 changelog 主题。１２３４５６，ＡＢＣ。\n";

    @ParameterizedTest
    @EnumSource(EncodingType.class)
    void chineseIsCountedAsTheEncodingCountsIt(EncodingType type) {
        Encoding encoding = REGISTRY.getEncoding(type);
        TokenCounter counter = new TokenCounter(encoding, 0);
        for (String text : new String[] {"。", "！？", "你好", PARAGRAPH, PARAGRAPH.repeat(20)}) {
            assertEquals(encoding.countTokensOrdinary(text), counter.count(text), () -> type + " on " + text);
            assertEquals(
                    encoding.countTokensOrdinary(text), counter.count(text), () -> type + ", remembered, on " + text);
        }
        // Each character is at least a token's fraction and at most a few: not bytes, not nothing.
        int tokens = counter.count(PARAGRAPH);
        assertTrue(tokens > PARAGRAPH.length() / 4 && tokens < PARAGRAPH.length() * 3, type + ": " + tokens);
    }

    /** The session processor counts an output before it ages and its cut form from the remembered prefix. */
    @ParameterizedTest
    @EnumSource(EncodingType.class)
    void aCutChineseToolOutputIsCountedFromItsPrefixAsWhole(EncodingType type) {
        Encoding encoding = REGISTRY.getEncoding(type);
        TokenCounter counter = new TokenCounter(encoding, 0);
        ToolResultTruncator truncator = new ToolResultTruncator();
        String output = PARAGRAPH.repeat(40);
        for (int limit = 300; limit < 3_000; limit += 97) {
            TokenCounter.Counted counted = counter.countRemembering(output, limit);
            assertEquals(encoding.countTokensOrdinary(output), counted.tokens());
            String cut = truncator
                    .truncate(output, limit, ToolResultTruncator.storedPath("call_1"))
                    .orElseThrow();
            int at = limit;
            assertEquals(
                    encoding.countTokensOrdinary(cut),
                    counter.count(cut, counted.prefix()),
                    () -> type + " cut at " + at + " bytes");
        }
    }
}
