package io.reme.client.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.client.OpenAiMessage;
import io.reme.client.RemeClient;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

class RemeChatMemoryRepositoryTest {
    @Test
    void springMessagesGoToTheChatShapeOneToolMessagePerResponseAndComeBackTheSame() {
        List<Message> messages = List.of(
                new SystemMessage("Be brief."),
                new UserMessage("Weather in Oslo and Rome?"),
                AssistantMessage.builder()
                        .content("")
                        .toolCalls(List.of(
                                new AssistantMessage.ToolCall("c1", "function", "weather", "{\"city\":\"Oslo\"}"),
                                new AssistantMessage.ToolCall("c2", "function", "weather", "{\"city\":\"Rome\"}")))
                        .build(),
                ToolResponseMessage.builder()
                        .responses(List.of(
                                new ToolResponseMessage.ToolResponse("c1", "weather", "rainy"),
                                new ToolResponseMessage.ToolResponse("c2", "weather", "sunny")))
                        .build(),
                new AssistantMessage("Oslo rains, Rome shines."));

        List<OpenAiMessage> chat = RemeChatMemoryRepository.toChat(messages);

        assertEquals(
                List.of("system", "user", "assistant", "tool", "tool", "assistant"),
                chat.stream().map(OpenAiMessage::role).toList());
        List<OpenAiMessage> served = chat.stream()
                .map(m -> "tool".equals(m.role()) ? m.withName(null) : m)
                .toList();
        List<Message> back = RemeChatMemoryRepository.fromChat(served);
        assertEquals(5, back.size());
        assertEquals(messages.get(0), back.get(0));
        assertEquals(messages.get(1).getText(), back.get(1).getText());
        assertEquals(
                ((AssistantMessage) messages.get(2)).getToolCalls(), ((AssistantMessage) back.get(2)).getToolCalls());
        assertEquals(
                ((ToolResponseMessage) messages.get(3)).getResponses(),
                assertInstanceOf(ToolResponseMessage.class, back.get(3)).getResponses());
        assertEquals("Oslo rains, Rome shines.", back.get(4).getText());
    }

    @Test
    void deletingAConversationIsRefusedAndAnInvalidIdTooBeforeAnyRequest() {
        RemeChatMemoryRepository repository = RemeChatMemoryRepository.forUser(
                RemeClient.builder("http://127.0.0.1:9", "k").build(), "alice");

        assertThrows(UnsupportedOperationException.class, () -> repository.deleteByConversationId("default"));
        assertThrows(IllegalArgumentException.class, () -> repository.findByConversationId("a conversation"));
        assertThrows(IllegalArgumentException.class, () -> repository.saveAll("../x", List.of()));
    }
}
