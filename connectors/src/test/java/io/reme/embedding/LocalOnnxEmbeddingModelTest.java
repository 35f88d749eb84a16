package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The default local model (bge-small-en-v1.5 quantised, one text per run) passes the contract; its
 * queries carry the model's instruction. Padded batches are checked on the float32 MiniLM model,
 * where they must not change a vector at all.
 */
class LocalOnnxEmbeddingModelTest extends EmbeddingModelContract {

    @Override
    protected EmbeddingModel openModel() throws EmbeddingException {
        return LocalOnnxEmbeddingModel.create();
    }

    @Test
    void isTheQuantisedBgeSmallWithItsArtifactVersion() {
        LocalOnnxEmbeddingModel local = (LocalOnnxEmbeddingModel) model;
        assertEquals(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q, local.variant());
        assertTrue(model.id().matches("bge-small-en-v1\\.5-q@\\d+\\.\\d+\\.\\d+.*"), model.id());
        assertEquals(384, model.dimensions());
        assertEquals(LocalOnnxEmbeddingModel.DEFAULT_MAX_TOKENS, local.maxTokens());
        assertEquals(1, local.batchSize());
    }

    @Test
    void aQueryIsEmbeddedWithTheInstructionInFront() throws EmbeddingException {
        String question = "Where does Alice want to travel next summer?";
        float[] query = model.embedQuery(question);
        assertTrue(Vectors.dot(
                        query, model.embed(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q.queryPrefix() + question))
                > 0.99999);
        assertTrue(Vectors.dot(query, model.embed(question)) < 0.999, "the instruction changes the vector");
    }

    @Test
    void aQuestionIsCloserToItsAnswerThanToAnUnrelatedPassage() throws EmbeddingException {
        float[] query = model.embedQuery("Which programming language does Bob use at work?");
        double answer = Vectors.dot(query, model.embed("Bob: at the office I write most of my code in Kotlin."));
        double unrelated = Vectors.dot(query, model.embed("Alice: we baked a lemon cake for grandma's birthday."));
        assertTrue(answer > unrelated + 0.05, "answer " + answer + ", unrelated " + unrelated);
    }

    @Test
    void tokenVectorsAreTheTextsWordPiecesAtUnitLength() throws EmbeddingException {
        LocalOnnxEmbeddingModel local = (LocalOnnxEmbeddingModel) model;
        List<float[][]> tokens = local.tokenVectors(List.of("Bob writes Kotlin", "", "Bob writes Kotlin at work"));
        // [CLS] and [SEP] left out: one vector per word piece ("kotlin" is two: kot ##lin)
        assertEquals(local.countTokens(List.of("Bob writes Kotlin")) - 2, tokens.get(0).length);
        assertEquals(0, tokens.get(1).length);
        assertEquals(tokens.get(0).length + 2, tokens.get(2).length);
        for (float[] v : tokens.get(2)) {
            assertEquals(384, v.length);
            assertEquals(1.0, Vectors.dot(v, v), 1e-4);
        }
        // contextual: the same word piece differs with its sentence, but stays close
        double same = Vectors.dot(tokens.get(0)[0], tokens.get(2)[0]);
        assertTrue(same < 0.99999 && same > 0.8, "bob in both texts: " + same);
    }

    @Test
    void aSymmetricModelEmbedsAQueryAsAnyText() throws EmbeddingException {
        try (LocalOnnxEmbeddingModel minilm = LocalOnnxEmbeddingModel.builder()
                .variant(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2_Q)
                .build()) {
            String question = "Where does Alice want to travel next summer?";
            assertTrue(minilm.id().startsWith("all-minilm-l6-v2-q@"), minilm.id());
            assertTrue(Vectors.dot(minilm.embedQuery(question), minilm.embed(question)) > 0.99999);
        }
    }

    @Test
    void paddedBatchesOfTheFloatModelGiveTheVectorsOfSingleTexts() throws EmbeddingException {
        try (LocalOnnxEmbeddingModel exact = LocalOnnxEmbeddingModel.builder()
                        .variant(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2)
                        .batchSize(3)
                        .build();
                LocalOnnxEmbeddingModel quantisedModel = LocalOnnxEmbeddingModel.builder()
                        .variant(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2_Q)
                        .build()) {
            assertTrue(exact.id().startsWith("all-minilm-l6-v2@"), exact.id());
            List<float[]> batched = exact.embed(TEXTS);
            List<float[]> quantised = quantisedModel.embed(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                float[] alone = exact.embed(TEXTS.get(i));
                assertTrue(Vectors.dot(batched.get(i), alone) > 0.9999, TEXTS.get(i));
                // The quantised model is a close copy of this one.
                assertTrue(Vectors.dot(quantised.get(i), alone) > 0.95, TEXTS.get(i));
            }
        }
    }

    @Test
    void batchesOfTheQuantisedModelMoveVectorsALittle() throws EmbeddingException {
        try (LocalOnnxEmbeddingModel batching =
                LocalOnnxEmbeddingModel.builder().batchSize(4).build()) {
            assertEquals(4, batching.batchSize());
            List<float[]> batched = batching.embed(TEXTS);
            double sum = 0;
            for (int i = 0; i < TEXTS.size(); i++) {
                double cosine = Vectors.dot(batched.get(i), model.embed(TEXTS.get(i)));
                assertTrue(cosine > 0.9, TEXTS.get(i) + ": cosine " + cosine);
                sum += cosine;
            }
            assertTrue(sum / TEXTS.size() > 0.97, "mean cosine " + sum / TEXTS.size());
        }
    }

    @Test
    void aLongTextIsCutToMaxTokensNotRejected() throws EmbeddingException {
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 600; i++) {
            words.append("word").append(i % 50).append(' ');
        }
        String long1 = words.toString();
        String long2 = long1 + " and a different ending that lies far beyond the limit";
        float[] a = model.embed(long1);
        float[] b = model.embed(long2);
        // Both are cut at the same token: the ending does not count.
        assertTrue(Vectors.dot(a, b) > 0.99999, "cosine " + Vectors.dot(a, b));
        assertEquals(
                LocalOnnxEmbeddingModel.DEFAULT_MAX_TOKENS,
                ((LocalOnnxEmbeddingModel) model).countTokens(List.of(long1)));
    }

    @Test
    void emptyTextGetsAVector() throws EmbeddingException {
        float[] vector = model.embed("");
        assertEquals(1.0, Vectors.norm(vector), 1e-3);
    }

    @Test
    void concurrentCallsGetTheSameVectorsAsSequentialOnes() throws Exception {
        List<float[]> expected = model.embed(TEXTS);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<List<float[]>>> futures = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Callable<List<float[]>> call = () -> model.embed(TEXTS);
                futures.add(pool.submit(call));
            }
            for (Future<List<float[]>> future : futures) {
                List<float[]> got = future.get();
                for (int i = 0; i < TEXTS.size(); i++) {
                    assertTrue(Vectors.dot(expected.get(i), got.get(i)) > 0.99999, TEXTS.get(i));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void batchesRunAtOnceComeBackInTheCallersOrder() throws EmbeddingException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            texts.add("note " + i + ": " + "the deploy moved to friday ".repeat(1 + i % 5));
        }
        List<float[]> alone = new ArrayList<>();
        for (String text : texts) {
            alone.add(model.embed(text));
        }
        try (LocalOnnxEmbeddingModel parallel =
                LocalOnnxEmbeddingModel.builder().threads(3).build()) {
            assertEquals(3, parallel.threads());
            List<float[]> got = parallel.embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                assertTrue(Vectors.dot(alone.get(i), got.get(i)) > 0.99999, texts.get(i));
            }
        }
    }

    @Test
    void builderRejectsBadSettings() {
        assertThrows(
                IllegalArgumentException.class,
                () -> LocalOnnxEmbeddingModel.builder().batchSize(-1));
        assertThrows(
                IllegalArgumentException.class,
                () -> LocalOnnxEmbeddingModel.builder().maxTokens(513));
        assertThrows(
                IllegalArgumentException.class,
                () -> LocalOnnxEmbeddingModel.builder().threads(-1));
    }

    @Test
    void anExplicitNativeCacheSettingWins() throws EmbeddingException {
        // The build sets DJL_CACHE_DIR for tests, so a directory given in code must not replace it.
        String before = System.getProperty("DJL_CACHE_DIR");
        Assumptions.assumeTrue(before != null, "run by Maven, which sets DJL_CACHE_DIR");
        DjlTokenizer.configureNativeCache(Path.of("target", "elsewhere"));
        assertEquals(before, System.getProperty("DJL_CACHE_DIR"));
    }

    @Test
    void djlStaysOffline() {
        // Set by the model unless the environment says otherwise: DJL must not report usage over the network.
        Assumptions.assumeTrue(System.getenv("OPT_OUT_TRACKING") == null && System.getenv("DJL_OFFLINE") == null);
        assertEquals("true", System.getProperty("OPT_OUT_TRACKING"));
        assertEquals("true", System.getProperty("ai.djl.offline"));
    }

    @Test
    void aClosedModelRefusesWork() throws EmbeddingException {
        LocalOnnxEmbeddingModel other = LocalOnnxEmbeddingModel.builder().build();
        assertEquals(384, other.embed("hello").length);
        other.close();
        other.close();
        assertThrows(IllegalStateException.class, () -> other.embed("hello"));
    }
}
