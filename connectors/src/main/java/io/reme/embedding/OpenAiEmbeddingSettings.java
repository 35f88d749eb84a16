package io.reme.embedding;

import io.reme.provider.OpenAiSettings;
import java.util.HashMap;
import java.util.Map;
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
public record OpenAiEmbeddingSettings(OpenAiSettings connection, String model, int dimensions,
        boolean sendDimensions, int batchSize) {

    public static final int DEFAULT_BATCH_SIZE = 128;
    public static final int MAX_BATCH_SIZE = 2048;

    public static final String ENV_MODEL = "EMBEDDING_MODEL";
    public static final String ENV_DIMENSIONS = "EMBEDDING_DIMENSIONS";
    public static final String ENV_SEND_DIMENSIONS = "EMBEDDING_SEND_DIMENSIONS";
    public static final String ENV_BATCH_SIZE = "EMBEDDING_BATCH_SIZE";
    public static final String ENV_BASE_URL = "EMBEDDING_BASE_URL";
    public static final String ENV_API_KEY = "EMBEDDING_API_KEY";

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
            throw new IllegalArgumentException("batchSize must be between 1 and " + MAX_BATCH_SIZE + ", got " + batchSize);
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

    /**
     * Reads the settings from environment variables: {@code EMBEDDING_MODEL} and
     * {@code EMBEDDING_DIMENSIONS} are required; {@code EMBEDDING_BASE_URL} and
     * {@code EMBEDDING_API_KEY} default to {@code LLM_BASE_URL} and {@code LLM_API_KEY} (see
     * {@link OpenAiSettings#fromEnv(Map)}, whose {@code LLM_TIMEOUT_SECONDS} applies too);
     * {@code EMBEDDING_SEND_DIMENSIONS} ({@code true}/{@code false}, default true) and
     * {@code EMBEDDING_BATCH_SIZE} (default {@value #DEFAULT_BATCH_SIZE}) are optional.
     *
     * @throws IllegalArgumentException naming the variable that is missing or wrong
     */
    public static OpenAiEmbeddingSettings fromEnv(Map<String, String> env) {
        String model = value(env, ENV_MODEL);
        if (model == null) {
            throw new IllegalArgumentException(ENV_MODEL + " is not set: name the embedding model, e.g. "
                    + "text-embedding-3-small");
        }
        String dimensionsText = value(env, ENV_DIMENSIONS);
        if (dimensionsText == null) {
            throw new IllegalArgumentException(ENV_DIMENSIONS + " is not set: give the length of the model's vectors, "
                    + "e.g. 1536 for text-embedding-3-small (or less, if the model can shorten them)");
        }
        int dimensions = positiveInt(ENV_DIMENSIONS, dimensionsText);
        boolean sendDimensions = true;
        String sendText = value(env, ENV_SEND_DIMENSIONS);
        if (sendText != null) {
            if (sendText.equalsIgnoreCase("true")) {
                sendDimensions = true;
            } else if (sendText.equalsIgnoreCase("false")) {
                sendDimensions = false;
            } else {
                throw new IllegalArgumentException(ENV_SEND_DIMENSIONS + " must be true or false, got '" + sendText + "'");
            }
        }
        int batchSize = DEFAULT_BATCH_SIZE;
        String batchText = value(env, ENV_BATCH_SIZE);
        if (batchText != null) {
            batchSize = positiveInt(ENV_BATCH_SIZE, batchText);
            if (batchSize > MAX_BATCH_SIZE) {
                throw new IllegalArgumentException(ENV_BATCH_SIZE + " must be at most " + MAX_BATCH_SIZE + ", got '"
                        + batchText + "'");
            }
        }
        Map<String, String> connectionEnv = new HashMap<>(env);
        String baseUrl = value(env, ENV_BASE_URL);
        if (baseUrl != null) {
            connectionEnv.put(OpenAiSettings.ENV_BASE_URL, baseUrl);
        }
        String apiKey = value(env, ENV_API_KEY);
        if (apiKey != null) {
            connectionEnv.put(OpenAiSettings.ENV_API_KEY, apiKey);
        }
        if (value(connectionEnv, OpenAiSettings.ENV_API_KEY) == null) {
            throw new IllegalArgumentException(ENV_API_KEY + " (or " + OpenAiSettings.ENV_API_KEY + ") is not set: give "
                    + "the key of the embeddings endpoint (any non-blank value for a local server that does not check it)");
        }
        // The connection's chat model is not used for embeddings; fill it so that LLM_MODEL is not required.
        connectionEnv.putIfAbsent(OpenAiSettings.ENV_MODEL, model);
        if (value(connectionEnv, OpenAiSettings.ENV_MODEL) == null) {
            connectionEnv.put(OpenAiSettings.ENV_MODEL, model);
        }
        OpenAiSettings connection = OpenAiSettings.fromEnv(connectionEnv);
        return new OpenAiEmbeddingSettings(connection, model, dimensions, sendDimensions, batchSize);
    }

    private static String value(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static int positiveInt(String name, String text) {
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive whole number, got '" + text + "'");
        }
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be a positive whole number, got '" + text + "'");
        }
        return value;
    }
}
