package io.reme.embedding;

import java.nio.FloatBuffer;

/**
 * One model run's last hidden state ({@code rows × length × dimensions}, one row per text, padded to the
 * longest) with its attention mask, and the ways to pool it into vectors. Every vector it returns is a
 * fresh array scaled to unit length.
 *
 * <p>A view of the run's output buffer: valid only until the run's result is closed, so pool it inside
 * {@link OnnxEncoder#run}. Not thread-safe.
 */
final class HiddenStates {
    private final FloatBuffer hidden;
    private final long[] mask;
    private final int rows;
    private final int length;
    private final int dimensions;

    HiddenStates(FloatBuffer hidden, long[] mask, int rows, int length, int dimensions) {
        this.hidden = hidden;
        this.mask = mask;
        this.rows = rows;
        this.length = length;
        this.dimensions = dimensions;
    }

    /** Averages each text's token vectors over its attention mask, then scales the average to unit length. */
    float[][] meanPooled() {
        float[][] out = new float[rows][];
        for (int row = 0; row < rows; row++) {
            float[] sum = new float[dimensions];
            int tokens = 0;
            for (int t = 0; t < length; t++) {
                if (mask[row * length + t] == 0) {
                    continue;
                }
                tokens++;
                int base = (row * length + t) * dimensions;
                for (int d = 0; d < dimensions; d++) {
                    sum[d] += hidden.get(base + d);
                }
            }
            if (tokens > 0) {
                for (int d = 0; d < dimensions; d++) {
                    sum[d] /= tokens;
                }
            }
            out[row] = Vectors.normalize(sum);
        }
        return out;
    }

    /** Each text's first ({@code [CLS]}) token vector, scaled to unit length. */
    float[][] firstTokens() {
        float[][] out = new float[rows][];
        for (int row = 0; row < rows; row++) {
            float[] cls = new float[dimensions];
            hidden.get(row * length * dimensions, cls);
            out[row] = Vectors.normalize(cls);
        }
        return out;
    }

    /** Each text's token vectors between {@code [CLS]} and {@code [SEP]}, unit length; none for an empty text. */
    float[][][] innerTokens() {
        float[][][] out = new float[rows][][];
        for (int row = 0; row < rows; row++) {
            int real = 0;
            while (real < length && mask[row * length + real] != 0) {
                real++;
            }
            int inner = Math.max(0, real - 2);
            out[row] = new float[inner][];
            for (int t = 0; t < inner; t++) {
                float[] v = new float[dimensions];
                hidden.get((row * length + t + 1) * dimensions, v);
                out[row][t] = Vectors.normalize(v);
            }
        }
        return out;
    }
}
