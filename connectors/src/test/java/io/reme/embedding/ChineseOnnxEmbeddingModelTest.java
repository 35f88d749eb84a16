package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Chinese local model (bge-small-zh-v1.5 quantised, from its own artifact) passes the contract, embeds
 * queries with its Chinese instruction, and places a Chinese question near the Chinese message that answers
 * it even when the two share few characters.
 */
class ChineseOnnxEmbeddingModelTest extends EmbeddingModelContract {

    @Override
    protected EmbeddingModel openModel() throws EmbeddingException {
        return LocalOnnxEmbeddingModel.builder()
                .variant(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_ZH_V15_Q)
                .build();
    }

    @Test
    void isTheQuantisedBgeSmallZhWithItsArtifactVersion() {
        assertTrue(model.id().matches("bge-small-zh-v1\\.5-q@\\d+\\.\\d+\\.\\d+.*"), model.id());
        assertEquals(512, model.dimensions());
    }

    @Test
    void aQueryIsEmbeddedWithTheChineseInstructionInFront() throws EmbeddingException {
        String question = "我下个月要去哪里出差？";
        float[] query = model.embedQuery(question);
        assertTrue(Vectors.dot(query, model.embed("为这个句子生成表示以用于检索相关文章：" + question)) > 0.99999);
        assertTrue(Vectors.dot(query, model.embed(question)) < 0.999, "the instruction changes the vector");
    }

    @Test
    void aChineseQuestionIsCloserToItsAnswerThanToUnrelatedMessages() throws EmbeddingException {
        float[] query = model.embedQuery("小王平时用什么编程语言写代码？");
        List<float[]> messages =
                model.embed(List.of("小王：我在公司主要用Kotlin开发后端服务。", "小李：周末我们给奶奶烤了一个柠檬蛋糕。", "金融科技精英论坛的地点是北京。"));
        double answer = Vectors.dot(query, messages.get(0));
        for (float[] unrelated : messages.subList(1, 3)) {
            double other = Vectors.dot(query, unrelated);
            assertTrue(answer > other + 0.05, "answer " + answer + ", unrelated " + other);
        }
    }
}
