package io.reme.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import java.util.Objects;

/**
 * One message of a chat-completions request, as {@code GET /v1/sessions/{session}/context?format=openai} serves it:
 * role {@code system} (the summary comes first as one), {@code user}, {@code assistant} (content and/or tool calls)
 * or {@code tool} (the call it answers and its output).
 *
 * @param role {@code system}, {@code user}, {@code assistant} or {@code tool}
 * @param content a string, an array of parts ({@code text}, {@code image_url}), or null
 * @param toolCalls an assistant's tool calls (empty when none)
 * @param toolCallId the call a {@code tool} message answers, or null
 * @param name a name the message carries, or null
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record OpenAiMessage(
        String role,
        JsonNode content,
        @JsonProperty("tool_calls") List<ToolCall> toolCalls,
        @JsonProperty("tool_call_id") String toolCallId,
        String name) {
    public OpenAiMessage {
        Objects.requireNonNull(role, "role");
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    public static OpenAiMessage system(String text) {
        return new OpenAiMessage("system", TextNode.valueOf(text), null, null, null);
    }

    public static OpenAiMessage user(String text) {
        return new OpenAiMessage("user", TextNode.valueOf(text), null, null, null);
    }

    /** An assistant's answer: its text (or null) and its tool calls (or none). */
    public static OpenAiMessage assistant(String text, List<ToolCall> toolCalls) {
        return new OpenAiMessage("assistant", text == null ? null : TextNode.valueOf(text), toolCalls, null, null);
    }

    /** A tool's output answering the call {@code toolCallId}. */
    public static OpenAiMessage tool(String toolCallId, String output) {
        return new OpenAiMessage("tool", TextNode.valueOf(output), null, toolCallId, null);
    }

    public OpenAiMessage withName(String value) {
        return new OpenAiMessage(role, content, toolCalls, toolCallId, value);
    }

    /**
     * The message's text: the content string, or its text parts joined by a newline (images and other parts left
     * out); null when it has none.
     */
    public String text() {
        if (content == null || content.isNull()) {
            return null;
        }
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            if ("text".equals(part.path("type").asText()) && part.hasNonNull("text")) {
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(part.get("text").asText());
            }
        }
        return text.isEmpty() ? null : text.toString();
    }
}
