package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LanguageRoutedEmbeddingModel;
import io.reme.embedding.LocalOnnxEmbeddingModel;
import io.reme.embedding.OpenAiEmbeddingModel;
import io.reme.embedding.OpenAiEmbeddingSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProvidersTest {

    @Test
    void theOpenAiEmbeddingEndpointSharesTheLlmConnectionUnlessGivenItsOwn() {
        OpenAiEmbeddingSettings shared = Providers.openAiEmbeddings(AppConfig.of(Map.of(
                "reme.embedding.provider", "openai",
                "reme.embedding.model", "text-embedding-3-small",
                "reme.embedding.dimensions", "512",
                "reme.llm.base-url", "http://127.0.0.1:8080/v1",
                "reme.llm.api-key", "k",
                "reme.llm.timeout", "7s")));
        assertEquals("text-embedding-3-small", shared.model());
        assertEquals(512, shared.dimensions());
        assertTrue(shared.sendDimensions());
        assertEquals(128, shared.batchSize());
        assertEquals("http://127.0.0.1:8080/v1", shared.connection().baseUrl());
        assertEquals("k", shared.connection().apiKey());
        assertEquals(Duration.ofSeconds(7), shared.connection().requestTimeout());

        OpenAiEmbeddingSettings own = Providers.openAiEmbeddings(AppConfig.of(Map.of(
                "reme.embedding.provider", "openai",
                "reme.embedding.model", "m",
                "reme.embedding.dimensions", "8",
                "reme.embedding.base-url", "http://127.0.0.1:9/v1",
                "reme.embedding.api-key", "e",
                "reme.embedding.send-dimensions", "false",
                "reme.embedding.batch-size", "16",
                "reme.llm.base-url", "http://127.0.0.1:8080/v1",
                "reme.llm.api-key", "k")));
        assertEquals("http://127.0.0.1:9/v1", own.connection().baseUrl());
        assertEquals("e", own.connection().apiKey());
        assertFalse(own.sendDimensions());
        assertEquals(16, own.batchSize());
    }

    @Test
    void eachProviderGivesItsModel() throws Exception {
        assertNull(Providers.embeddings(AppConfig.of(Map.of("reme.embedding.provider", "none"))));
        try (EmbeddingModel remote = Providers.embeddings(AppConfig.of(Map.of(
                "reme.embedding.provider",
                "openai",
                "reme.embedding.model",
                "m",
                "reme.embedding.dimensions",
                "8",
                "reme.llm.api-key",
                "k")))) {
            assertInstanceOf(OpenAiEmbeddingModel.class, remote);
            assertEquals("openai:m/8", remote.id());
        }
        try (EmbeddingModel local = Providers.embeddings(AppConfig.of(Map.of(
                "reme.embedding.local-model",
                "all-minilm-l6-v2-q",
                "reme.embedding.threads",
                "3",
                "reme.embedding.local-batch-size",
                "32")))) {
            LanguageRoutedEmbeddingModel routed = assertInstanceOf(LanguageRoutedEmbeddingModel.class, local);
            LocalOnnxEmbeddingModel onnx = assertInstanceOf(LocalOnnxEmbeddingModel.class, routed.main());
            assertTrue(onnx.id().startsWith("all-minilm-l6-v2-q@"), onnx.id());
            assertEquals(3, onnx.threads());
            assertEquals(32, onnx.batchSize());
            LocalOnnxEmbeddingModel chinese = assertInstanceOf(LocalOnnxEmbeddingModel.class, routed.chinese());
            assertEquals(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_ZH_V15_Q, chinese.variant());
            assertEquals(3, chinese.threads());
            assertEquals(32, chinese.batchSize());
            assertSame(chinese, local.modelFor("我下周去北京出差"));
            assertSame(onnx, local.modelFor("I fly to Beijing next week"));
        }
        try (EmbeddingModel local =
                Providers.embeddings(AppConfig.of(Map.of("reme.embedding.chinese-model", "none")))) {
            LocalOnnxEmbeddingModel onnx = assertInstanceOf(LocalOnnxEmbeddingModel.class, local);
            assertEquals(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q, onnx.variant());
            assertSame(onnx, local.modelFor("我下周去北京出差"));
        }
    }
}
