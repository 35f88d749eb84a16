package io.reme.embedding;

import io.reme.provider.OpenAiSettings;
import java.util.Objects;

/**
 * How to reach an OpenAI-compatible embeddings endpoint.
 *
 * @param connection base URL, key and request timeout (its chat {@code model} is not used here)
 * @param model the embedding model, e.g. {@code text-embedding-3-small}
 * @param dimensions the length of the vectors the model returns; checked on every answer
 * @param sendDimensions whether to ask for {@code dimensions} in each request (models that can shorten
 *        their vectors, like text-embedding-3-*, accept it; older ones and some servers reject it)
 * @param batchSize texts per request (OpenAI accepts up to 2048)
 */
public record OpenAiEmbeddingSettings(
        OpenAiSettings connection, String model, int dimensions, boolean sendDimensions, int batchSize) {

    public static final int DEFAULT_BATCH_SIZE = 128;
    public static final int MAX_BATCH_SIZE = 2048;

    public OpenAiEmbeddingSettings {
        Objects.requireNonNull(connection, "connection");
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("model must not be blank");
        }
        model = model.strip();
        if (dimensions <= 0) {
            throw new IllegalArgumentException("dimensions must be positive, got " + dimensions);
        }
        if (batchSize <= 0 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "batchSize must be between 1 and " + MAX_BATCH_SIZE + ", got " + batchSize);
        }
    }

    /** Settings that send {@code dimensions} and use the default batch size. */
    public static OpenAiEmbeddingSettings of(OpenAiSettings connection, String model, int dimensions) {
        return new OpenAiEmbeddingSettings(connection, model, dimensions, true, DEFAULT_BATCH_SIZE);
    }

    public OpenAiEmbeddingSettings withBatchSize(int value) {
        return new OpenAiEmbeddingSettings(connection, model, dimensions, sendDimensions, value);
    }

    public OpenAiEmbeddingSettings withSendDimensions(boolean value) {
        return new OpenAiEmbeddingSettings(connection, model, dimensions, value, batchSize);
    }
}
