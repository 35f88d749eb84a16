package io.reme.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A session's context ready for Anthropic's messages API ({@code format=anthropic}): the system text apart (the
 * summary, then any system messages), the messages alternating user and assistant with content blocks.
 *
 * @param system the system text, empty when there is no summary and no system message
 * @param messages the messages, with content blocks ({@code text}, {@code image}, {@code tool_use}, {@code
 *     tool_result})
 * @param tokens the served context's token totals
 */
public record AnthropicContext(String system, List<Message> messages, Tokens tokens) {
    public AnthropicContext {
        messages = messages == null ? List.of() : List.copyOf(messages);
    }

    /**
     * One message of the request.
     *
     * @param role {@code user} or {@code assistant}
     * @param content its blocks, as the API takes them
     */
    public record Message(String role, List<JsonNode> content) {
        public Message {
            content = content == null ? List.of() : List.copyOf(content);
        }
    }
}
