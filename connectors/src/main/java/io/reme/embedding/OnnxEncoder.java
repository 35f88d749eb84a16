package io.reme.embedding;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sentence-transformers encoder in an ONNX Runtime session: it runs batches of token ids through the
 * model and hands the last hidden state, as {@link HiddenStates}, to a pooling function.
 *
 * <p>Thread-safe: ONNX Runtime sessions may run several batches at once, each on one thread. Lifecycle:
 * {@link #open}, {@link #run} any number of times, {@link #close} once no run is in flight.
 */
final class OnnxEncoder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OnnxEncoder.class);
    private static final String OUTPUT_NAME = "last_hidden_state";
    private static final String INPUT_IDS = "input_ids";
    private static final String ATTENTION_MASK = "attention_mask";
    private static final String TOKEN_TYPE_IDS = "token_type_ids";

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final boolean wantsTokenTypes;
    private final int dimensions;

    private OnnxEncoder(OrtEnvironment environment, OrtSession session, boolean wantsTokenTypes, int dimensions) {
        this.environment = environment;
        this.session = session;
        this.wantsTokenTypes = wantsTokenTypes;
        this.dimensions = dimensions;
    }

    /**
     * Loads the model.
     *
     * @param model the ONNX file's bytes
     * @param name the file's name, for messages
     * @throws EmbeddingException (not retryable) when the model cannot be loaded or is not an encoder with
     *     {@code input_ids} and {@code attention_mask} inputs and a {@code [batch, tokens, hidden]} output
     */
    static OnnxEncoder open(byte[] model, String name) throws EmbeddingException {
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        OrtSession opened = null;
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            // One thread per run, and several runs at once: the matrices of a sentence are too small to
            // split over cores well (measured: 1.4-1.5x the sentences per CPU-second of two intra-op threads).
            options.setIntraOpNumThreads(1);
            opened = environment.createSession(model, options);
            boolean wantsTokenTypes = opened.getInputNames().contains(TOKEN_TYPE_IDS);
            if (!opened.getInputNames().contains(INPUT_IDS)
                    || !opened.getInputNames().contains(ATTENTION_MASK)) {
                throw new EmbeddingException(
                        name + " has inputs " + opened.getInputNames() + ", expected " + INPUT_IDS + " and "
                                + ATTENTION_MASK,
                        false,
                        null);
            }
            return new OnnxEncoder(environment, opened, wantsTokenTypes, hiddenSize(opened));
        } catch (OrtException e) {
            closeQuietly(opened);
            throw new EmbeddingException("cannot load " + name + ": " + e.getMessage(), false, e);
        } catch (EmbeddingException | RuntimeException e) {
            closeQuietly(opened);
            throw e;
        }
    }

    /** The length of the hidden state's vectors. */
    int dimensions() {
        return dimensions;
    }

    /**
     * One model run over the texts' token ids, each row padded to the longest, and {@code pooling} of its
     * last hidden state (inside the run: the state is gone after it).
     */
    <T> T run(long[][] tokenIds, Function<HiddenStates, T> pooling) throws EmbeddingException {
        int rows = tokenIds.length;
        int length = 0;
        for (long[] row : tokenIds) {
            length = Math.max(length, row.length);
        }
        long[] ids = new long[rows * length];
        long[] mask = new long[rows * length];
        for (int row = 0; row < rows; row++) {
            System.arraycopy(tokenIds[row], 0, ids, row * length, tokenIds[row].length);
            Arrays.fill(mask, row * length, row * length + tokenIds[row].length, 1L);
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
                return pooling.apply(new HiddenStates(hidden.getFloatBuffer(), mask, rows, length, dimensions));
            }
        } catch (OrtException e) {
            throw new EmbeddingException("the embedding model failed: " + e.getMessage(), false, e);
        } finally {
            for (OnnxTensor tensor : inputs.values()) {
                tensor.close();
            }
        }
    }

    @Override
    public void close() {
        closeQuietly(session);
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
}
