package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.provider.OpenAiSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OpenAiEmbeddingSettingsTest {

    @Test
    void readsTheEmbeddingVariablesAndSharesTheLlmConnection() {
        OpenAiEmbeddingSettings settings = OpenAiEmbeddingSettings.fromEnv(Map.of(
                "EMBEDDING_MODEL", "text-embedding-3-small",
                "EMBEDDING_DIMENSIONS", "512",
                "LLM_BASE_URL", "http://127.0.0.1:8080/v1",
                "LLM_API_KEY", "k",
                "LLM_TIMEOUT_SECONDS", "7"));
        assertEquals("text-embedding-3-small", settings.model());
        assertEquals(512, settings.dimensions());
        assertTrue(settings.sendDimensions());
        assertEquals(OpenAiEmbeddingSettings.DEFAULT_BATCH_SIZE, settings.batchSize());
        assertEquals("http://127.0.0.1:8080/v1", settings.connection().baseUrl());
        assertEquals("k", settings.connection().apiKey());
        assertEquals(Duration.ofSeconds(7), settings.connection().requestTimeout());
    }

    @Test
    void embeddingEndpointAndKeyOverrideTheLlmOnes() {
        OpenAiEmbeddingSettings settings = OpenAiEmbeddingSettings.fromEnv(Map.of(
                "EMBEDDING_MODEL", "m",
                "EMBEDDING_DIMENSIONS", "8",
                "EMBEDDING_BASE_URL", "http://127.0.0.1:9/v1",
                "EMBEDDING_API_KEY", "e",
                "EMBEDDING_SEND_DIMENSIONS", "false",
                "EMBEDDING_BATCH_SIZE", "16",
                "LLM_BASE_URL", "http://127.0.0.1:8080/v1",
                "LLM_API_KEY", "k",
                "LLM_MODEL", "chat"));
        assertEquals("http://127.0.0.1:9/v1", settings.connection().baseUrl());
        assertEquals("e", settings.connection().apiKey());
        assertFalse(settings.sendDimensions());
        assertEquals(16, settings.batchSize());
    }

    @Test
    void namesWhatIsMissingOrWrong() {
        assertMessage("EMBEDDING_MODEL", Map.of("EMBEDDING_DIMENSIONS", "8", "LLM_API_KEY", "k"));
        assertMessage("EMBEDDING_DIMENSIONS", Map.of("EMBEDDING_MODEL", "m", "LLM_API_KEY", "k"));
        assertMessage("EMBEDDING_DIMENSIONS", Map.of("EMBEDDING_MODEL", "m", "EMBEDDING_DIMENSIONS", "-3",
                "LLM_API_KEY", "k"));
        assertMessage("EMBEDDING_API_KEY", Map.of("EMBEDDING_MODEL", "m", "EMBEDDING_DIMENSIONS", "8"));
        assertMessage("EMBEDDING_SEND_DIMENSIONS", Map.of("EMBEDDING_MODEL", "m", "EMBEDDING_DIMENSIONS", "8",
                "LLM_API_KEY", "k", "EMBEDDING_SEND_DIMENSIONS", "yes"));
        assertMessage("EMBEDDING_BATCH_SIZE", Map.of("EMBEDDING_MODEL", "m", "EMBEDDING_DIMENSIONS", "8",
                "LLM_API_KEY", "k", "EMBEDDING_BATCH_SIZE", "5000"));
    }

    @Test
    void doesNotShowTheKey() {
        OpenAiEmbeddingSettings settings = OpenAiEmbeddingSettings.of(
                OpenAiSettings.of("http://127.0.0.1:1/v1", "secret-key", "m"), "m", 8);
        assertFalse(settings.toString().contains("secret-key"), settings.toString());
    }

    private static void assertMessage(String variable, Map<String, String> env) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OpenAiEmbeddingSettings.fromEnv(env));
        assertTrue(e.getMessage().contains(variable), e.getMessage());
    }
}
