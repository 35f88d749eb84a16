package io.reme.embedding;

/** Small helpers for embedding vectors. */
public final class Vectors {
    private Vectors() {}

    /** The dot product; for L2-normalised vectors, their cosine similarity. */
    public static double dot(float[] a, float[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("vectors of different lengths: " + a.length + " and " + b.length);
        }
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }

    /** The Euclidean (L2) norm. */
    public static double norm(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        return Math.sqrt(sum);
    }

    /** The cosine similarity of two vectors of any length; 0 when either is all zeros. */
    public static double cosine(float[] a, float[] b) {
        double norms = norm(a) * norm(b);
        return norms == 0 ? 0 : dot(a, b) / norms;
    }

    /**
     * Scales {@code v} in place to unit length and returns it; an all-zero vector stays as it is.
     */
    public static float[] normalize(float[] v) {
        double norm = norm(v);
        if (norm > 0) {
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (v[i] / norm);
            }
        }
        return v;
    }
}
