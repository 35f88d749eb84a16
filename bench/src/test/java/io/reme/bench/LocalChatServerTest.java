package io.reme.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.LlmException;
import io.reme.provider.OpenAiLlmClient;
import io.reme.provider.OpenAiSettings;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The soak's stand-in model, driven through the real OpenAI client as the workers drive it. */
class LocalChatServerTest {
    private static final LocalDate DAY = LocalDate.of(2026, 12, 1);

    @Test
    void aDiaryUpdateWritesEachMarkerOnceThroughTheTools() throws Exception {
        try (LocalChatServer server = LocalChatServer.start(Duration.ZERO);
                OpenAiLlmClient client = client(server)) {
            Documents documents = new Documents();
            client.updateDiary(task("[soak:s1-t0-0] hello", "[soak:s1-t0-1] done"), documents);
            client.updateDiary(task("[soak:s1-t0-1] again", "[soak:s1-t1-0] next"), documents);

            String page = documents.texts.get("memory/" + DAY + ".md");
            assertEquals("# memory/" + DAY + ".md\n- [soak:s1-t0-0]\n- [soak:s1-t0-1]\n- [soak:s1-t1-0]\n", page);
        }
    }

    @Test
    void failingAndContextLimitedModesRefuseAndGoodAnswersAgain() throws Exception {
        try (LocalChatServer server = LocalChatServer.start(Duration.ZERO, 2_000);
                OpenAiLlmClient client = client(server)) {
            server.mode(LocalChatServer.Mode.FAILING);
            LlmException failed = assertThrows(
                    LlmException.class, () -> client.updateDiary(task("[soak:a-t0-0] hi"), new Documents()));
            assertTrue(failed.getMessage().contains("500"), failed.getMessage());

            server.mode(LocalChatServer.Mode.CONTEXT_LIMITED);
            LlmException refused = assertThrows(
                    LlmException.class,
                    () -> client.updateDiary(task("[soak:a-t0-0] " + "word ".repeat(1_000)), new Documents()));
            assertTrue(refused.getMessage().contains("maximum context length"), refused.getMessage());

            server.mode(LocalChatServer.Mode.GOOD);
            Documents documents = new Documents();
            client.updateDiary(task("[soak:a-t0-0] " + "word ".repeat(1_000)), documents);
            assertTrue(documents.texts.get("memory/" + DAY + ".md").contains("[soak:a-t0-0]"));
        }
    }

    private static OpenAiLlmClient client(LocalChatServer server) {
        return new OpenAiLlmClient(OpenAiSettings.of(server.baseUrl(), "test", LocalChatServer.MODEL));
    }

    private static DiaryTask task(String... texts) {
        List<Message> messages = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            messages.add(new Message(
                    "soak",
                    "s1",
                    "u0",
                    "m" + i,
                    Role.USER,
                    null,
                    Instant.parse("2026-12-01T10:00:00Z"),
                    List.of(new Block.Text(texts[i]))));
        }
        return new DiaryTask("soak", "u0", "s1", DAY, messages, "en");
    }

    /** The two documents of a task, in memory. */
    private static final class Documents implements DocumentEditor {
        final Map<String, String> texts = new HashMap<>();

        @Override
        public String read(String document) {
            return texts.getOrDefault(document, "");
        }

        @Override
        public void write(String document, String content) {
            texts.put(document, content);
        }

        @Override
        public void edit(String document, String oldText, String newText) {
            throw new IllegalArgumentException("the stand-in model only writes");
        }
    }
}
