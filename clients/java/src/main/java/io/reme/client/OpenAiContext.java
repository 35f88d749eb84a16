package io.reme.client;

import java.util.List;

/**
 * A session's context ready for a chat-completions request ({@code format=openai}): the summary as the first
 * {@code system} message when there is one, then the live messages, each tool call answered by its tool messages.
 *
 * @param messages the request's messages, as they are
 * @param tokens the served context's token totals
 */
public record OpenAiContext(List<OpenAiMessage> messages, Tokens tokens) {
    public OpenAiContext {
        messages = messages == null ? List.of() : List.copyOf(messages);
    }
}
