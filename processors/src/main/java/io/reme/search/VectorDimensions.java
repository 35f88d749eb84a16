package io.reme.search;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;

/**
 * The dimension of each vector field of one index ({@link MemorySchema#vectorField}): fixed by the
 * field's first vector, at most {@value #MAX_DIMENSION}. Thread-safe: writes fix dimensions while
 * searches read them.
 */
final class VectorDimensions {
    static final int MAX_DIMENSION = 1024;
    private static final String UNNAMED_MODEL = "";

    /** The dimension of each vector field's vectors, by field name. */
    private final Map<String, Integer> dimensions = new ConcurrentHashMap<>();

    /** The dimensions of the vector fields the reader's segments hold. */
    static VectorDimensions of(IndexReader reader) {
        VectorDimensions out = new VectorDimensions();
        for (LeafReaderContext leaf : reader.leaves()) {
            for (FieldInfo info : leaf.reader().getFieldInfos()) {
                if (info.getVectorDimension() > 0) {
                    out.dimensions.put(info.name, info.getVectorDimension());
                }
            }
        }
        return out;
    }

    /** Dimension of the vectors of {@code model} (null: vectors without a model name), 0 when it has none. */
    int of(String model) {
        return dimensions.getOrDefault(MemorySchema.vectorField(model), 0);
    }

    /**
     * Checks a vector about to be written against its field's dimension, fixing the field's if it has none yet.
     *
     * @throws IllegalArgumentException if the length is above the maximum or differs from the field's
     */
    void fix(String field, int length) {
        check(field, length, true);
    }

    /**
     * The models whose vectors a query vector of this length is compared with: its own model, or with no
     * model named every model of that length; none when the index holds no vectors of them yet.
     *
     * @throws IllegalArgumentException when the index holds vectors of the model (any model, unnamed) but
     *     of another length
     */
    List<String> modelsFor(String model, int length) {
        if (model != null && !model.isEmpty()) {
            check(MemorySchema.vectorField(model), length, false);
            return dimensions.containsKey(MemorySchema.vectorField(model)) ? List.of(model) : List.of();
        }
        List<String> models = new ArrayList<>();
        boolean any = false;
        for (Map.Entry<String, Integer> field : dimensions.entrySet()) {
            String name = field.getKey();
            String named = name.equals(MemorySchema.F_VECTOR)
                    ? UNNAMED_MODEL
                    : name.startsWith(MemorySchema.F_VECTOR + ".")
                            ? name.substring(MemorySchema.F_VECTOR.length() + 1)
                            : null;
            any |= named != null;
            if (named != null && field.getValue() == length) {
                models.add(named);
            }
        }
        if (any && models.isEmpty()) {
            throw new IllegalArgumentException(
                    "vector dimension " + length + " differs from the dimension of every model's vectors in the index");
        }
        models.sort(null);
        return models;
    }

    /** Checks a vector's length against its field's (fixing the field's with {@code fix} if it has none yet). */
    private void check(String field, int length, boolean fix) {
        if (length > MAX_DIMENSION) {
            throw new IllegalArgumentException("vector dimension " + length + " is above " + MAX_DIMENSION);
        }
        Integer current = fix ? dimensions.computeIfAbsent(field, f -> length) : dimensions.get(field);
        if (current != null && current != length) {
            throw new IllegalArgumentException("vector dimension " + length + " differs from the dimension " + current
                    + " of the index's vectors of " + (field.equals(MemorySchema.F_VECTOR) ? "no named model" : field));
        }
    }
}
