package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * bge-small-en-v1.5 (quantised) passes the contract; its queries carry the model's instruction and
 * its vectors are the {@code [CLS]} token's.
 */
class BgeSmallEmbeddingModelTest extends EmbeddingModelContract {

    @Override
    protected EmbeddingModel openModel() throws EmbeddingException {
        return LocalOnnxEmbeddingModel.builder().variant(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q).build();
    }

    @Test
    void isTheQuantisedBgeSmall() {
        assertTrue(model.id().matches("bge-small-en-v1\\.5-q@\\d+\\.\\d+\\.\\d+.*"), model.id());
        assertEquals(384, model.dimensions());
    }

    @Test
    void aQueryIsEmbeddedWithTheInstructionInFront() throws EmbeddingException {
        String question = "Where does Alice want to travel next summer?";
        float[] query = model.embedQuery(question);
        assertTrue(Vectors.dot(query, model.embed(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q.queryPrefix()
                + question)) > 0.99999);
        assertTrue(Vectors.dot(query, model.embed(question)) < 0.999, "the instruction changes the vector");
    }

    @Test
    void aQuestionIsCloserToItsAnswerThanToAnUnrelatedPassage() throws EmbeddingException {
        float[] query = model.embedQuery("Which programming language does Bob use at work?");
        double answer = Vectors.dot(query, model.embed("Bob: at the office I write most of my code in Kotlin."));
        double unrelated = Vectors.dot(query, model.embed("Alice: we baked a lemon cake for grandma's birthday."));
        assertTrue(answer > unrelated + 0.05, "answer " + answer + ", unrelated " + unrelated);
    }
}
