package io.reme.embedding;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.provider.OpenAiSettings;
import org.junit.jupiter.api.Test;

class OpenAiEmbeddingSettingsTest {
    private static final OpenAiSettings CONNECTION = OpenAiSettings.of("http://127.0.0.1:1/v1", "secret-key", "m");

    @Test
    void rejectsWhatCannotWork() {
        assertMessage("model", () -> OpenAiEmbeddingSettings.of(CONNECTION, " ", 8));
        assertMessage("dimensions", () -> OpenAiEmbeddingSettings.of(CONNECTION, "m", 0));
        assertMessage(
                "batchSize",
                () -> OpenAiEmbeddingSettings.of(CONNECTION, "m", 8).withBatchSize(5000));
        assertMessage(
                "batchSize",
                () -> OpenAiEmbeddingSettings.of(CONNECTION, "m", 8).withBatchSize(0));
    }

    @Test
    void doesNotShowTheKey() {
        OpenAiEmbeddingSettings settings = OpenAiEmbeddingSettings.of(CONNECTION, "m", 8);
        assertFalse(settings.toString().contains("secret-key"), settings.toString());
    }

    private static void assertMessage(String word, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(word), e.getMessage());
    }
}
