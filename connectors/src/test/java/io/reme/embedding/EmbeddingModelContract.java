package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link EmbeddingModel} must do, run against each implementation by a subclass (the
 * local ONNX model; the OpenAI-compatible one against a local server). One model per test class,
 * as loading a model can take a second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class EmbeddingModelContract {
    /** Texts of different lengths, so that batches need padding. */
    protected static final List<String> TEXTS = List.of(
            "The user prefers short answers.",
            "Deploy the orders service to the staging cluster orders-stg-2 before the Friday freeze, and run "
                    + "the thirty-minute soak test afterwards.",
            "Alice is allergic to peanuts.",
            "Decision: set max-poll-records to 100 and keep manual acknowledgements (ticket ORD-4821).",
            "ok",
            "Ünïcödé text, emoji 🙂 and 中文 must not break the tokenizer.",
            "The meeting moved to Thursday.");

    protected EmbeddingModel model;

    /** Opens the model under test; called once per test class. */
    protected abstract EmbeddingModel openModel() throws Exception;

    /**
     * How close (cosine) a text's vector from a batch must be to its vector alone. Exact models give
     * 1.0; a model with dynamic int8 quantisation scales its activations per batch, which moves a
     * vector a little with the texts it shares a batch with.
     */
    protected double batchTolerance() {
        return 0.99;
    }

    @BeforeAll
    void open() throws Exception {
        model = openModel();
    }

    @AfterAll
    void closeModel() {
        if (model != null) {
            model.close();
        }
    }

    @Test
    void hasAnIdAndDimensions() {
        assertNotNull(model.id());
        assertFalse(model.id().isBlank());
        assertTrue(model.dimensions() > 0, "dimensions " + model.dimensions());
    }

    @Test
    void returnsOneVectorOfTheModelsDimensionsPerText() throws EmbeddingException {
        List<float[]> vectors = model.embed(TEXTS);
        assertEquals(TEXTS.size(), vectors.size());
        for (float[] vector : vectors) {
            assertEquals(model.dimensions(), vector.length);
        }
    }

    @Test
    void vectorsAreNormalised() throws EmbeddingException {
        for (float[] vector : model.embed(TEXTS)) {
            assertEquals(1.0, Vectors.norm(vector), 1e-3);
            for (float x : vector) {
                assertTrue(Float.isFinite(x));
            }
        }
    }

    @Test
    void emptyInputGivesEmptyOutput() throws EmbeddingException {
        assertEquals(List.of(), model.embed(List.of()));
    }

    @Test
    void isDeterministic() throws EmbeddingException {
        List<float[]> first = model.embed(TEXTS);
        List<float[]> second = model.embed(TEXTS);
        for (int i = 0; i < TEXTS.size(); i++) {
            assertTrue(Vectors.dot(first.get(i), second.get(i)) > 0.99999, TEXTS.get(i));
        }
    }

    @Test
    void batchGivesTheSameVectorsAsOneByOne() throws EmbeddingException {
        List<float[]> batched = model.embed(TEXTS);
        for (int i = 0; i < TEXTS.size(); i++) {
            float[] alone = model.embed(TEXTS.get(i));
            double cosine = Vectors.dot(batched.get(i), alone);
            assertTrue(cosine > batchTolerance(), TEXTS.get(i) + ": cosine " + cosine);
        }
    }

    @Test
    void keepsTheOrderOfManyTexts() throws EmbeddingException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            texts.add(TEXTS.get(i % TEXTS.size()) + " (note " + i + ")");
        }
        List<float[]> forward = model.embed(texts);
        List<String> reversedTexts = new ArrayList<>(texts);
        Collections.reverse(reversedTexts);
        List<float[]> backward = model.embed(reversedTexts);
        for (int i = 0; i < texts.size(); i++) {
            double cosine = Vectors.dot(forward.get(i), backward.get(texts.size() - 1 - i));
            assertTrue(cosine > batchTolerance(), texts.get(i) + ": cosine " + cosine);
        }
    }

    @Test
    void aParaphraseIsCloserThanAnUnrelatedSentence() throws EmbeddingException {
        List<float[]> v = model.embed(List.of(
                "The cat is sleeping on the sofa.",
                "A cat sleeps on the sofa.",
                "Quarterly revenue grew by ten percent."));
        double paraphrase = Vectors.dot(v.get(0), v.get(1));
        double unrelated = Vectors.dot(v.get(0), v.get(2));
        assertTrue(paraphrase > unrelated + 0.2, "paraphrase " + paraphrase + ", unrelated " + unrelated);
    }

    @Test
    void aNullTextIsRejected() {
        assertThrows(NullPointerException.class, () -> model.embed(Arrays.asList("fine", null)));
    }
}
