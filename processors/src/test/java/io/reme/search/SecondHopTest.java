package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecondHopTest {
    @Test
    void theOtherFactOfTheFirstHitsThingComesSecond() {
        List<Hit> hits = hits(
                "记者团建拓展之旅的持续时间是七天。", "我将要参加首席记者能力提升营。", "趣跑购物节的持续时间是八个周。", "我将要参加记者团建拓展之旅。", "记者团建拓展之旅的时间是下下周六上午九点。");
        List<Hit> hopped = SecondHop.apply("那个持续时间是七天的活动，我要参加的活动是什么？", hits);
        // The retreat's other message that asks what the question asks (参加) moves up; its date does not,
        // since the question does not ask for a time the first hit lacks.
        assertEquals(List.of("h0", "h3", "h1", "h2", "h4"), ids(hopped));
    }

    @Test
    void englishWordsWithoutStopWords() {
        List<Hit> hits = hits(
                "The lantern festival is held in Shenzhen",
                "The book fair takes two days",
                "The food market takes three days",
                "The lantern festival takes nine days");
        List<Hit> hopped = SecondHop.apply("How many days does the festival in Shenzhen take?", hits);
        assertEquals(List.of("h0", "h3", "h1", "h2"), ids(hopped));
        assertEquals(
                Set.of("lantern", "festival", "held", "shenzhen"),
                SecondHop.words("The lantern festival is held in Shenzhen", false));
    }

    @Test
    void nothingMovesWhenNoHitIsAboutTheSameThing() {
        List<Hit> hits = hits("灯笼节的地点是广东深圳。", "读书会的持续时间是两天。", "电竞节的持续时间是三个周。");
        assertSame(hits, SecondHop.apply("那个地点是广东深圳的活动，持续时间是什么？", hits));
        // A first hit holding every word of the question leaves nothing to ask for.
        List<Hit> whole = hits("alpha beta gamma", "alpha delta", "alpha beta");
        assertSame(whole, SecondHop.apply("alpha beta", whole));
    }

    @Test
    void hitsBelowTheDepthStayWhereTheyAre() {
        List<String> texts = new ArrayList<>(List.of("灯笼节的地点是广东深圳。"));
        for (int i = 1; i < SecondHop.DEPTH; i++) {
            texts.add("读书会第" + i + "次的持续时间是两天。");
        }
        texts.add("灯笼节会持续九天。");
        List<Hit> hits = hits(texts.toArray(String[]::new));
        assertSame(hits, SecondHop.apply("那个地点是广东深圳的活动，持续时间是什么？", hits));

        List<Hit> within = new ArrayList<>(hits);
        within.add(1, within.remove(SecondHop.DEPTH));
        within.add(5, within.remove(1));
        assertEquals(
                "h" + SecondHop.DEPTH,
                SecondHop.apply("那个地点是广东深圳的活动，持续时间是什么？", within).get(1).id());
    }

    private static List<Hit> hits(String... texts) {
        List<Hit> hits = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            MemoryRecord memory = MemoryRecord.of(
                    "h" + i,
                    "acme",
                    "alice",
                    "s1",
                    MemoryType.PERSONAL,
                    texts[i],
                    Instant.parse("2026-01-01T00:00:00Z"));
            hits.add(new Hit(memory, new Hit.Scores(1.0 - i / 100.0, null, null, null, null)));
        }
        return List.copyOf(hits);
    }

    private static List<String> ids(List<Hit> hits) {
        return hits.stream().map(Hit::id).toList();
    }
}
