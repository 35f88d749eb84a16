package io.reme.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Chinese sentences have no space after them: a cut must still find where they end. */
class TextCutTest {
    private static final String[] CHINESE = {
        "我们把消费者的会话超时调到了四十五秒。",
        "为什么重平衡还是每小时发生两次？",
        "终于找到原因了！",
        "他说：“先别改生产环境的配置。”",
        "日志里有 CommitFailedException 和 max.poll.interval.ms 的提示。",
        "明天上午十点和运维团队一起复盘「订单服务」的事故。",
        "真的吗？！",
        "数据保留七天（按主题配置）。",
    };

    private static String kept(String text, int max) {
        return text.substring(0, TextCut.end(text, max));
    }

    @Test
    void aChineseTextIsCutAfterTheLastSentenceThatFits() {
        String text = "我喜欢绿茶。我的猫叫小白！东京现在几点？我们明天见面吧";
        assertEquals("我喜欢绿茶。我的猫叫小白！东京现在几点？", kept(text, 24));
        assertEquals("我喜欢绿茶。我的猫叫小白！", kept(text, 19));
        assertEquals("我喜欢绿茶。", kept(text, 11), "the boundary is at the budget's half: still used");
        String longSecond = "我喜欢绿茶。后面是一句很长很长很长很长的话还没有结束";
        assertEquals("我喜欢绿茶。后面是一句很长很长很", kept(longSecond, 16), "no boundary in the budget's second half");
    }

    @Test
    void aClosingQuoteStaysWithItsSentenceAndARunOfMarksIsNotSplit() {
        String quoted = "他说：“先别改生产环境的配置。”然后他就下班了，留下我们几个人继续排查";
        assertEquals("他说：“先别改生产环境的配置。”", kept(quoted, 20));
        String marks = "真的吗？！我不信。后面还有很多很多很多字";
        assertEquals("真的吗？！我不信。", kept(marks, 12));
        assertEquals("真的吗？！", kept(marks, 8), "never between ？ and ！");
    }

    @Test
    void aSentenceEndIsPreferredToALaterSpace() {
        String text = "我们用 Kafka Streams 处理消息。然后把结果写进 RocksDB 和 changelog 主题里面";
        int max = text.indexOf("changelog") + 3;
        assertEquals("我们用 Kafka Streams 处理消息。", kept(text, max));
    }

    @Test
    void latinSentencesEndBeforeWhiteSpaceAndWordsAreKeptWhole() {
        String text = "The group rebalanced twice. See max.poll.interval.ms for why it happens so often";
        assertEquals("The group rebalanced twice.", kept(text, 40), "not after the dots of a property name");
        assertEquals(
                "The group rebalanced twice. See max.poll.interval.ms for why",
                kept(text, 62).stripTrailing());
        assertEquals("x".repeat(50), kept("x".repeat(80), 50), "no boundary at all: cut at the budget");
    }

    @Test
    void neverInsideASurrogatePairAndNeverOverTheBudget() {
        String text = "好".repeat(9) + "😀😀😀";
        assertEquals("好".repeat(9) + "😀", kept(text, 12));
        assertEquals("好".repeat(9) + "😀", kept(text, 11), "one char back rather than half an emoji");
        assertEquals("short", kept("short", 5));
        assertThrows(IllegalArgumentException.class, () -> TextCut.end("abc", 0));
    }

    /**
     * Random Chinese paragraphs and budgets: whenever a sentence ends in the budget's second half, the
     * kept part is exactly the sentences up to the last such end; it never exceeds the budget.
     */
    @Test
    void randomChineseParagraphsAreCutAtTheLastSentenceEndWithinTheBudget() {
        Random random = new Random(29);
        for (int round = 0; round < 2_000; round++) {
            StringBuilder paragraph = new StringBuilder();
            List<Integer> ends = new ArrayList<>();
            int sentences = 1 + random.nextInt(12);
            for (int s = 0; s < sentences; s++) {
                paragraph.append(CHINESE[random.nextInt(CHINESE.length)]);
                ends.add(paragraph.length());
            }
            String text = paragraph.toString();
            int max = 1 + random.nextInt(text.length());
            String where = "max " + max + " in " + text;
            int end = TextCut.end(text, max);
            assertTrue(end <= max, where);
            if (max == text.length()) {
                assertEquals(text.length(), end, where);
                continue;
            }
            int best = 0;
            for (int e : ends) {
                if (e <= max && e >= Math.max(1, max / 2)) {
                    best = e;
                }
            }
            if (best > 0) {
                assertEquals(best, end, () -> where + ": cut mid-sentence, kept [" + text.substring(0, end) + "]");
            }
        }
    }

    @Test
    void aTranscriptCutsALongChineseBlockAfterASentence() {
        String block = "订单服务的消费者组在晚高峰时重平衡了两次。".repeat(10) + "最后一句没有结束";
        Message message = new Message(
                "acme",
                "s1",
                "wang",
                "m1",
                Role.USER,
                null,
                Instant.parse("2026-12-01T10:15:00Z"),
                List.of(new Block.Text(block)));
        String transcript = new Transcript(ZoneOffset.UTC, 100).render(List.of(message));
        String line = transcript.lines().toList().get(1);
        assertTrue(line.endsWith("。 …[cut]"), line);
        assertFalse(line.contains("最后"), line);
        assertTrue(line.length() <= 100 + " …[cut]".length(), line);
    }
}
