package io.reme.search;

import java.util.List;
import java.util.Objects;

/**
 * What of a memory is embedded, and where each vector goes: its text, then its text with context when it has a
 * context. The embedding worker, the API's writes, the model change's re-embedding and the evaluation all embed
 * a memory this way, so that a memory carries the same vectors whichever of them wrote it.
 */
public final class MemoryEmbedding {
    private MemoryEmbedding() {}

    /** The texts to embed for {@code memory}, in the order {@link #withVectors} reads their vectors. */
    public static List<String> texts(MemoryRecord memory) {
        return memory.contextText() == null ? List.of(memory.text()) : List.of(memory.text(), memory.contextText());
    }

    /**
     * {@code memory} with {@code model}'s vectors of its {@link #texts} as its own. A null context vector (the
     * context could not be embedded) leaves it without one: it is still found by its text vector.
     *
     * @throws IllegalArgumentException when the vectors are not as many as the texts
     * @throws NullPointerException when the text's vector is null
     */
    public static MemoryRecord withVectors(MemoryRecord memory, List<float[]> vectors, String model) {
        float[] context = contextVector(memory, vectors);
        MemoryRecord out = memory.withVector(Objects.requireNonNull(vectors.get(0), "the text's vector"), model);
        return context == null ? out : out.withContextVector(context);
    }

    /** {@code model}'s vectors of {@code memory}'s {@link #texts}, to carry beside its own during a model change. */
    public static MemoryRecord.ModelVectors modelVectors(MemoryRecord memory, List<float[]> vectors, String model) {
        float[] context = contextVector(memory, vectors);
        return new MemoryRecord.ModelVectors(model, vectors.get(0), context);
    }

    private static float[] contextVector(MemoryRecord memory, List<float[]> vectors) {
        int expected = texts(memory).size();
        if (vectors.size() != expected) {
            throw new IllegalArgumentException(
                    "memory " + memory.id() + " needs " + expected + " vectors, got " + vectors.size());
        }
        return expected == 1 ? null : vectors.get(1);
    }
}
