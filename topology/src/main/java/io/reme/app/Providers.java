package io.reme.app;

import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LanguageRoutedEmbeddingModel;
import io.reme.embedding.LocalOnnxEmbeddingModel;
import io.reme.embedding.OpenAiEmbeddingModel;
import io.reme.embedding.OpenAiEmbeddingSettings;
import io.reme.provider.LlmClient;
import io.reme.provider.OpenAiLlmClient;
import io.reme.provider.OpenAiSettings;
import io.reme.provider.offline.OfflineLlmClient;
import io.reme.tokens.TokenCounter;
import io.reme.worker.WorkerSettings;
import java.util.List;

/** Chooses the LLM provider, the embedding model and the worker settings from the configuration. */
public final class Providers {
    private Providers() {}

    /** The OpenAI-compatible client when an endpoint or model is configured, else the offline extractive one. */
    public static LlmClient llm(AppConfig config, TokenCounter tokens) {
        String baseUrl = config.get(AppConfig.LLM_BASE_URL);
        String model = config.get(AppConfig.LLM_MODEL);
        if (baseUrl.isBlank() && model.isBlank()) {
            return new OfflineLlmClient(tokens);
        }
        try {
            return new OpenAiLlmClient(OpenAiSettings.of(
                            baseUrl.isBlank() ? OpenAiSettings.DEFAULT_BASE_URL : baseUrl,
                            config.get(AppConfig.LLM_API_KEY),
                            model)
                    .withRequestTimeout(config.get(AppConfig.LLM_TIMEOUT))
                    .withMaxOutputTokens(config.get(AppConfig.LLM_MAX_OUTPUT_TOKENS)));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of("LLM_BASE_URL / LLM_API_KEY / LLM_MODEL: " + e.getMessage()));
        }
    }

    /** The model that embeds memories and queries, or null when search is text only. */
    public static EmbeddingModel embeddings(AppConfig config) {
        return switch (config.get(AppConfig.EMBEDDING)) {
            case "none" -> null;
            case "openai" -> new OpenAiEmbeddingModel(openAiEmbeddings(config));
            default -> local(config);
        };
    }

    static OpenAiEmbeddingSettings openAiEmbeddings(AppConfig config) {
        String baseUrl = firstSet(
                config.get(AppConfig.EMBEDDING_BASE_URL),
                config.get(AppConfig.LLM_BASE_URL),
                OpenAiSettings.DEFAULT_BASE_URL);
        String apiKey = firstSet(config.get(AppConfig.EMBEDDING_API_KEY), config.get(AppConfig.LLM_API_KEY), "");
        String model = config.get(AppConfig.EMBEDDING_MODEL);
        try {
            OpenAiSettings connection =
                    OpenAiSettings.of(baseUrl, apiKey, model).withRequestTimeout(config.get(AppConfig.LLM_TIMEOUT));
            return new OpenAiEmbeddingSettings(
                    connection,
                    model,
                    config.get(AppConfig.EMBEDDING_DIMENSIONS),
                    config.get(AppConfig.EMBEDDING_SEND_DIMENSIONS),
                    config.get(AppConfig.EMBEDDING_BATCH_SIZE));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of("reme.embedding.*: " + e.getMessage()));
        }
    }

    private static String firstSet(String value, String fallback, String last) {
        return !value.isBlank() ? value : !fallback.isBlank() ? fallback : last;
    }

    /** The local model, with the Chinese model for Chinese texts unless that is turned off. */
    private static EmbeddingModel local(AppConfig config) {
        EmbeddingModel main = local(config, config.get(AppConfig.EMBEDDING_LOCAL_MODEL));
        String chinese = config.get(AppConfig.EMBEDDING_CHINESE_MODEL);
        if ("none".equals(chinese)) {
            return main;
        }
        try {
            return new LanguageRoutedEmbeddingModel(main, local(config, chinese));
        } catch (RuntimeException e) {
            main.close();
            throw e;
        }
    }

    private static LocalOnnxEmbeddingModel local(AppConfig config, String name) {
        try {
            return LocalOnnxEmbeddingModel.builder()
                    .variant(LocalOnnxEmbeddingModel.Variant.named(name))
                    .threads(config.get(AppConfig.EMBEDDING_THREADS))
                    .batchSize(config.get(AppConfig.EMBEDDING_LOCAL_BATCH))
                    .build();
        } catch (EmbeddingException e) {
            throw new IllegalStateException("cannot load the local embedding model " + name + ": " + e.getMessage(), e);
        }
    }

    public static WorkerSettings workers(AppConfig config) {
        return new WorkerSettings(
                config.get(AppConfig.LLM_CONCURRENCY),
                config.get(AppConfig.LLM_TIMEOUT),
                config.get(AppConfig.LLM_MAX_ATTEMPTS),
                config.get(AppConfig.LLM_BACKOFF),
                config.get(AppConfig.LLM_BACKOFF_MAX),
                config.get(AppConfig.SUMMARY_MAX_TOKENS),
                1000,
                5,
                config.get(AppConfig.ZONE));
    }
}
