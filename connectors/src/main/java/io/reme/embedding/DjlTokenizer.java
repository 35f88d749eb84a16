package io.reme.embedding;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.reme.embedding.LocalOnnxEmbeddingModel.Variant;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a {@link Variant}'s word-piece tokenizer with DJL, which must stay offline and unpacks its
 * native library into a cache directory. The settings made here are JVM-wide system properties, and
 * an explicit setting (environment variable or system property) always wins over them.
 */
final class DjlTokenizer {
    private static final Logger LOG = LoggerFactory.getLogger(DjlTokenizer.class);
    private static final String[] CACHE_SETTINGS = {"ENGINE_CACHE_DIR", "DJL_CACHE_DIR"};

    private DjlTokenizer() {}

    /**
     * The variant's tokenizer: special tokens added, each text cut to {@code maxTokens}, no padding
     * (the caller pads each batch to its longest text). The caller closes it.
     *
     * @throws java.io.UncheckedIOException when the tokenizer is not on the classpath
     */
    static HuggingFaceTokenizer open(Variant variant, int maxTokens) throws IOException {
        keepDjlOffline();
        Map<String, String> options = new HashMap<>();
        options.put("addSpecialTokens", "true");
        options.put("truncation", "true");
        options.put("maxLength", Integer.toString(maxTokens));
        options.put("modelMaxLength", Integer.toString(LocalOnnxEmbeddingModel.MODEL_MAX_TOKENS));
        // Padding is done per batch here, to the batch's longest text; the file asks for a fixed 128.
        options.put("padding", "false");
        try (InputStream in = ModelFiles.tokenizer(variant)) {
            return HuggingFaceTokenizer.newInstance(in, options);
        }
    }

    /**
     * DJL reports each tokenizer it creates to its makers over the network (first asking the cloud
     * metadata address which machine it runs on), and may download files unless offline: neither
     * may happen here. An explicit setting of {@code OPT_OUT_TRACKING} or {@code DJL_OFFLINE}
     * ({@code ai.djl.offline}) is left as it is.
     */
    private static synchronized void keepDjlOffline() {
        if (isUnset("OPT_OUT_TRACKING", "OPT_OUT_TRACKING")) {
            System.setProperty("OPT_OUT_TRACKING", "true");
        }
        if (isUnset("DJL_OFFLINE", "ai.djl.offline")) {
            System.setProperty("ai.djl.offline", "true");
        }
    }

    private static boolean isUnset(String env, String property) {
        String value = System.getenv(env);
        if (value == null || value.isEmpty()) {
            value = System.getProperty(property);
        }
        return value == null || value.isEmpty();
    }

    /**
     * Points DJL's native cache at {@code dir} unless the environment or a system property already does;
     * null changes nothing.
     */
    static synchronized void configureNativeCache(Path dir) throws EmbeddingException {
        if (dir == null) {
            return;
        }
        for (String name : CACHE_SETTINGS) {
            String value = System.getenv(name);
            if (value == null || value.isEmpty()) {
                value = System.getProperty(name);
            }
            if (value != null && !value.isEmpty()) {
                LOG.debug("{} is set to {}: the tokenizer's native library goes there, not to {}", name, value, dir);
                return;
            }
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new EmbeddingException("cannot create the native library cache " + dir + ": " + e, false, e);
        }
        System.setProperty("DJL_CACHE_DIR", dir.toAbsolutePath().toString());
    }
}
