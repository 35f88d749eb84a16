package io.reme.client.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.reme.client.OpenAiMessage;
import io.reme.client.RemeClient;
import java.util.List;
import org.junit.jupiter.api.Test;

class RemeChatMemoryStoreTest {
    @Test
    void langChainMessagesGoToTheChatShapeAndComeBackTheSame() {
        ToolExecutionRequest request = ToolExecutionRequest.builder()
                .id("c1")
                .name("weather")
                .arguments("{\"city\":\"Oslo\"}")
                .build();
        List<ChatMessage> messages = List.of(
                SystemMessage.from("Be brief."),
                UserMessage.from("What is the weather in Oslo?"),
                AiMessage.from(request),
                ToolExecutionResultMessage.from(request, "rainy"),
                AiMessage.from("It rains."),
                UserMessage.from("pat", "Thanks"));

        List<OpenAiMessage> chat = RemeChatMemoryStore.toChat(messages);

        assertEquals(
                List.of("system", "user", "assistant", "tool", "assistant", "user"),
                chat.stream().map(OpenAiMessage::role).toList());
        assertEquals("c1", chat.get(3).toolCallId());
        assertEquals("weather", chat.get(2).toolCalls().getFirst().function().name());
        // The server serves a tool message without its tool's name: it is read back from the call.
        List<OpenAiMessage> served = chat.stream()
                .map(m -> "tool".equals(m.role()) ? m.withName(null) : m)
                .toList();
        assertEquals(messages, RemeChatMemoryStore.fromChat(served));
    }

    @Test
    void deletingASessionIsRefusedSayingWhatTheApiErases() {
        RemeChatMemoryStore store = RemeChatMemoryStore.forUser(
                RemeClient.builder("http://127.0.0.1:9", "k").build(), "alice");

        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> store.deleteMessages("s1"));
        assertEquals(
                "ReMe keeps a session until it expires: the API erases a whole user (RemeClient.eraseUser) or"
                        + " tenant, not one session ('s1')",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> store.getMessages("not a session"));
    }
}
