package io.reme.embedding;

import java.util.List;
import java.util.Objects;

/**
 * Turns texts into vectors for similarity search: the seam between the memory pipeline and an
 * embedding provider (the local ONNX model by default, an OpenAI-compatible endpoint as an option;
 * tests use fakes).
 *
 * <p>Every implementation returns L2-normalised vectors, so the dot product of two of them is their
 * cosine similarity. Vectors of different models (or versions) are not comparable: store
 * {@link #id()} with every vector and re-embed when it changes.
 *
 * <p>Implementations are safe for use by several threads at once.
 */
public interface EmbeddingModel extends AutoCloseable {

    /**
     * Names the model and its version, e.g. {@code all-minilm-l6-v2-q@1.19.0-beta29} or
     * {@code openai:text-embedding-3-small/512}; recorded with every vector.
     */
    String id();

    /** The length of every vector this model returns. */
    int dimensions();

    /**
     * Embeds the texts, batching internally as the model needs.
     *
     * @param texts the texts, none null; an empty list gives an empty list
     * @return one L2-normalised vector of {@link #dimensions()} floats per text, in the same order
     * @throws EmbeddingException when the model or the provider fails; {@link EmbeddingException#retryable()}
     *         says whether trying again can help
     */
    List<float[]> embed(List<String> texts) throws EmbeddingException;

    /** Embeds one text: {@code embed(List.of(text)).get(0)}. */
    default float[] embed(String text) throws EmbeddingException {
        return embed(List.of(text)).get(0);
    }

    /**
     * Embeds a search query. Asymmetric models (bge) embed queries with an instruction in front, so
     * that a short question lands near the passages that answer it; symmetric ones embed it as any
     * text, which is the default.
     */
    default float[] embedQuery(String query) throws EmbeddingException {
        return embed(query);
    }

    /**
     * The model that embeds {@code text}, and the context that goes with it: this one, unless this model
     * routes texts by their language ({@link LanguageRoutedEmbeddingModel}). A caller records the
     * {@link #id()} of the model returned with the vectors it makes, so vectors of two models are never
     * searched as one.
     */
    default EmbeddingModel modelFor(String text) {
        return this;
    }

    /**
     * Names what decides a memory's vector: this model's id, or for a model that routes texts by language its
     * models and the rule ({@link LanguageRoutedEmbeddingModel}). The memory index records the profile its searches
     * use; a change of profile is a change of model that every memory must be re-embedded for (docs/architecture.md,
     * "Changing the embedding model").
     */
    default String profile() {
        return id();
    }

    /** The argument check of {@link #embed(List)}: the list and every text in it present. */
    static void requireTexts(List<String> texts) {
        Objects.requireNonNull(texts, "texts");
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i) == null) {
                throw new NullPointerException("texts[" + i + "] is null");
            }
        }
    }

    /** Frees the model's resources; later calls to {@link #embed(List)} fail. */
    @Override
    void close();
}
