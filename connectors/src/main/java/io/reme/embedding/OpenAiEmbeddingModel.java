package io.reme.embedding;

import com.openai.client.OpenAIClient;
import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIRetryableException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.Embedding;
import com.openai.models.embeddings.EmbeddingCreateParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An {@link EmbeddingModel} over an OpenAI-compatible {@code POST /embeddings} endpoint (OpenAI, or a
 * local server speaking the same protocol).
 *
 * <p>Vectors are asked for as JSON floats ({@code encoding_format: float}), not as the SDK's default
 * base64: every compatible server understands floats, not all understand base64. The vectors are
 * L2-normalised here again, as not every server does it.
 *
 * <p>The SDK's own retries are off: one batch is one HTTP request, and the caller decides about
 * trying again from {@link EmbeddingException#retryable()} (HTTP 408, 409, 429, 5xx and I/O
 * failures such as timeouts are retryable).
 */
public final class OpenAiEmbeddingModel implements EmbeddingModel {
    private static final int MAX_ERROR_CHARS = 500;

    private final OpenAiEmbeddingSettings settings;
    private final OpenAIClient client;

    public OpenAiEmbeddingModel(OpenAiEmbeddingSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.client = settings.connection().newClient();
    }

    public OpenAiEmbeddingSettings settings() {
        return settings;
    }

    /** {@code openai:<model>/<dimensions>}, e.g. {@code openai:text-embedding-3-small/512}. */
    @Override
    public String id() {
        return "openai:" + settings.model() + "/" + settings.dimensions();
    }

    @Override
    public int dimensions() {
        return settings.dimensions();
    }

    @Override
    public List<float[]> embed(List<String> texts) throws EmbeddingException {
        EmbeddingModel.requireTexts(texts);
        List<float[]> out = new ArrayList<>(texts.size());
        for (int start = 0; start < texts.size(); start += settings.batchSize()) {
            out.addAll(embedBatch(texts.subList(start, Math.min(texts.size(), start + settings.batchSize()))));
        }
        return out;
    }

    private List<float[]> embedBatch(List<String> texts) throws EmbeddingException {
        EmbeddingCreateParams.Builder params = EmbeddingCreateParams.builder()
                .model(settings.model())
                .inputOfArrayOfStrings(List.copyOf(texts))
                .encodingFormat(EmbeddingCreateParams.EncodingFormat.FLOAT);
        if (settings.sendDimensions()) {
            params.dimensions(settings.dimensions());
        }
        CreateEmbeddingResponse response = call(params.build());
        float[][] vectors = new float[texts.size()][];
        try {
            List<Embedding> data = response.data();
            if (data.size() != texts.size()) {
                throw new EmbeddingException(
                        "the embeddings endpoint returned " + data.size() + " vectors for " + texts.size() + " texts",
                        true,
                        null);
            }
            for (Embedding embedding : data) {
                long index = embedding.index();
                if (index < 0 || index >= vectors.length || vectors[(int) index] != null) {
                    throw new EmbeddingException(
                            "the embeddings endpoint returned a vector with a bad or repeated index " + index + " for "
                                    + texts.size() + " texts",
                            true,
                            null);
                }
                List<Float> values = embedding.embedding();
                if (values.size() != settings.dimensions()) {
                    throw new EmbeddingException(
                            "the model " + settings.model() + " returned vectors of "
                                    + values.size() + " dimensions, configured: " + settings.dimensions()
                                    + (settings.sendDimensions() ? "" : " (dimensions are not sent with the request)"),
                            false,
                            null);
                }
                float[] vector = new float[values.size()];
                for (int i = 0; i < vector.length; i++) {
                    vector[i] = values.get(i);
                }
                vectors[(int) index] = Vectors.normalize(vector);
            }
        } catch (OpenAIInvalidDataException e) {
            throw new EmbeddingException(
                    "the embeddings endpoint sent an answer that is not a list of embeddings: "
                            + abbreviate(e.getMessage()),
                    true,
                    e);
        }
        return List.of(vectors);
    }

    /** One HTTP call, its failures mapped to {@link EmbeddingException}. */
    private CreateEmbeddingResponse call(EmbeddingCreateParams params) throws EmbeddingException {
        try {
            return client.embeddings().create(params);
        } catch (OpenAIServiceException e) {
            int status = e.statusCode();
            boolean retryable = status == 408 || status == 409 || status == 429 || status >= 500;
            throw new EmbeddingException(
                    "the embeddings endpoint answered HTTP " + status + ": " + abbreviate(e.getMessage()),
                    retryable,
                    e);
        } catch (OpenAIIoException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new EmbeddingException(
                    "the embeddings request failed (" + cause.getClass().getSimpleName() + ": "
                            + abbreviate(cause.getMessage()) + ")",
                    true,
                    e);
        } catch (OpenAIInvalidDataException e) {
            throw new EmbeddingException(
                    "the embeddings endpoint sent an answer that is not a list of embeddings: "
                            + abbreviate(e.getMessage()),
                    true,
                    e);
        } catch (OpenAIRetryableException e) {
            throw new EmbeddingException("the embeddings request failed: " + abbreviate(e.getMessage()), true, e);
        } catch (OpenAIException e) {
            throw new EmbeddingException("the embeddings request failed: " + abbreviate(e.getMessage()), false, e);
        }
    }

    private static String abbreviate(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "…";
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "OpenAiEmbeddingModel[" + id() + ", " + settings.connection().baseUrl() + "]";
    }
}
