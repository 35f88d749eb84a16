package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Texts go to the model of their script; as a model of its own the pair is its main model. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LanguageRoutedEmbeddingModelTest {
    private LocalOnnxEmbeddingModel english;
    private LocalOnnxEmbeddingModel chinese;
    private LanguageRoutedEmbeddingModel routed;

    @BeforeAll
    void open() throws EmbeddingException {
        english = LocalOnnxEmbeddingModel.create();
        chinese = LocalOnnxEmbeddingModel.builder()
                .variant(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_ZH_V15_Q)
                .build();
        routed = new LanguageRoutedEmbeddingModel(english, chinese);
    }

    @AfterAll
    void close() {
        routed.close();
    }

    @Test
    void chineseIsTextWithAtLeastAsManyHanCharactersAsOtherWords() {
        assertTrue(LanguageRoutedEmbeddingModel.isChinese("金融科技精英论坛的地点是北京。"));
        assertTrue(LanguageRoutedEmbeddingModel.isChinese("我用Python写了一个Kafka Streams的程序"));
        // The evaluation's turn text: a date and a speaker in front of a short Chinese message.
        assertTrue(LanguageRoutedEmbeddingModel.isChinese("[1 April 2024] user: 好的"));
        assertTrue(LanguageRoutedEmbeddingModel.isChinese("會議改到星期四"), "traditional characters are Han too");
        assertFalse(LanguageRoutedEmbeddingModel.isChinese("I met 王小明 at the conference in Beijing"));
        assertFalse(LanguageRoutedEmbeddingModel.isChinese("The meeting moved to Thursday."));
        assertFalse(LanguageRoutedEmbeddingModel.isChinese("私は東京に住んでいます"), "Japanese: more kana than kanji");
        assertFalse(LanguageRoutedEmbeddingModel.isChinese("회의는 목요일로 옮겨졌다"), "Korean");
        assertFalse(LanguageRoutedEmbeddingModel.isChinese("2024-04-01 12:30 ¥300 。！？"), "no letters at all");
        assertFalse(LanguageRoutedEmbeddingModel.isChinese(""));
        assertFalse(LanguageRoutedEmbeddingModel.isChinese(null));
    }

    @Test
    void eachTextGoesToTheModelOfItsScript() {
        assertSame(chinese, routed.modelFor("我下周去北京出差"));
        assertSame(english, routed.modelFor("I fly to Beijing next week"));
        assertSame(english, routed.modelFor(""));
        assertSame(english, english.modelFor("我下周去北京出差"), "a plain model embeds every text itself");
    }

    @Test
    void asAModelOfItsOwnItIsTheMainModel() throws EmbeddingException {
        assertEquals(english.id(), routed.id());
        assertEquals(english.dimensions(), routed.dimensions());
        // Even for Chinese text: a caller that does not route gets the main model's vectors under its id.
        assertArrayEquals(english.embed("我下周去北京出差"), routed.embed("我下周去北京出差"));
        assertArrayEquals(english.embedQuery("where do I fly?"), routed.embedQuery("where do I fly?"));
    }

    @Test
    void aChineseQuestionFindsItsAnswerBetterThroughTheChineseModel() throws EmbeddingException {
        String question = "我下个月去哪里开会？";
        String answer = "金融科技精英论坛的地点是北京，时间是五月。";
        String unrelated = "我周末给奶奶烤了一个柠檬蛋糕。";
        EmbeddingModel model = routed.modelFor(question);
        assertSame(model, routed.modelFor(answer), "question and memory meet in one model's space");
        float[] q = model.embedQuery(question);
        double margin = Vectors.dot(q, model.embed(answer)) - Vectors.dot(q, model.embed(unrelated));
        float[] qe = english.embedQuery(question);
        double englishMargin = Vectors.dot(qe, english.embed(answer)) - Vectors.dot(qe, english.embed(unrelated));
        assertTrue(margin > 0.05, "Chinese model margin " + margin);
        assertTrue(margin > englishMargin, "Chinese model " + margin + ", English model " + englishMargin);
    }

    @Test
    void bothLanguagesNeedModelsOfTheirOwn() {
        assertThrows(IllegalArgumentException.class, () -> new LanguageRoutedEmbeddingModel(english, english));
    }
}
