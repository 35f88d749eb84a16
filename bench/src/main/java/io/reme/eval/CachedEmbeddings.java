package io.reme.eval;

import io.reme.search.EmbeddingFunction;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * An {@link EmbeddingFunction} that keeps every vector it has computed in a file, so evaluation
 * runs that differ only in how they search do not embed the same texts again. Keyed by the SHA-256
 * of the text and whether it was embedded as a query; one file per model, appended to. Not thread
 * safe; for the evaluation only.
 */
public final class CachedEmbeddings implements EmbeddingFunction {
    private final EmbeddingFunction model;
    private final Path file;
    private final Map<String, float[]> vectors = new HashMap<>();

    private CachedEmbeddings(EmbeddingFunction model, Path file) {
        this.model = model;
        this.file = file;
    }

    /** Wraps {@code model}, reading the vectors already in {@code file} (created if missing). */
    public static CachedEmbeddings open(EmbeddingFunction model, Path file) throws IOException {
        CachedEmbeddings cache = new CachedEmbeddings(model, file);
        if (Files.exists(file)) {
            try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
                while (true) {
                    String key;
                    try {
                        key = in.readUTF();
                    } catch (EOFException end) {
                        break;
                    }
                    float[] v = new float[in.readInt()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = in.readFloat();
                    }
                    cache.vectors.put(key, v);
                }
            } catch (EOFException truncated) {
                // A run stopped mid-write: what was read is kept, the rest is computed again.
            }
        }
        return cache;
    }

    public int size() {
        return vectors.size();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        List<String> missing = new ArrayList<>();
        for (String text : texts) {
            if (!vectors.containsKey(key(text, false))) {
                missing.add(text);
            }
        }
        if (!missing.isEmpty()) {
            List<float[]> computed = model.embed(missing);
            for (int i = 0; i < missing.size(); i++) {
                store(key(missing.get(i), false), computed.get(i));
            }
        }
        return texts.stream().map(t -> vectors.get(key(t, false))).toList();
    }

    @Override
    public float[] embedQuery(String query) {
        String key = key(query, true);
        float[] v = vectors.get(key);
        if (v == null) {
            v = model.embedQuery(query);
            store(key, v);
        }
        return v;
    }

    private void store(String key, float[] v) {
        vectors.put(key, v);
        try (DataOutputStream out = new DataOutputStream(
                Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
            out.writeUTF(key);
            out.writeInt(v.length);
            for (float x : v) {
                out.writeFloat(x);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String key(String text, boolean query) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((byte) (query ? 'q' : 'd'));
            return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
