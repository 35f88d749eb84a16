package io.reme.search;

import java.util.List;

/**
 * Turns texts into vectors, one per text and in the same order. Implementations wrap a local model
 * or an embedding endpoint; callers pass {@code null} where no embedding is available (BM25 only).
 */
@FunctionalInterface
public interface EmbeddingFunction {
    List<float[]> embed(List<String> texts);

    /** The vector of a search query; models that embed queries differently from memories override this. */
    default float[] embedQuery(String query) {
        return embed(List.of(query)).get(0);
    }
}
