package io.reme.client.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import io.reme.client.OpenAiMessage;
import io.reme.client.RemeClient;
import io.reme.client.SessionMemory;
import io.reme.client.ToolCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * LangChain4j's {@link ChatMemoryStore} on ReMe sessions: give it to a {@code MessageWindowChatMemory} (or any
 * memory over a store) and the conversation lives in ReMe, compacted there when it grows.
 *
 * <ul>
 *   <li>A memory id is a session: its {@code toString()} must be a valid session id (1 to 64 characters of {@code
 *       [A-Za-z0-9._-]}, starting with a letter or digit), else {@link IllegalArgumentException}.
 *   <li>{@link #getMessages} is the session's served context ({@code format=openai}): the summary of the compacted
 *       past as a {@link SystemMessage} first when there is one, then the live messages; empty for an unknown session.
 *   <li>{@link #updateMessages} appends only the messages the session does not hold yet and waits until the session
 *       serves them ({@link SessionMemory} says how the new ones are found, and what happens to a list that is not
 *       an extension of the session's).
 *   <li>{@link #deleteMessages} throws {@link UnsupportedOperationException}: the API erases a whole user or tenant,
 *       never one session, and the session's messages stay until the session expires. To forget a user, call {@link
 *       RemeClient#eraseUser}.
 * </ul>
 *
 * <p>Messages map to the chat-completions shape: {@link UserMessage} texts (other contents, such as images, are not
 * kept), {@link AiMessage} text and tool execution requests, {@link ToolExecutionResultMessage} as the tool message
 * answering its request. A user message's name is kept; the tool's name is read back from the call it answers.
 */
public final class RemeChatMemoryStore implements ChatMemoryStore {
    private final SessionMemory sessions;
    private final UnaryOperator<String> userOfSession;

    /**
     * A store whose sessions belong to the users {@code userOfSession} names (a valid user id for each session id).
     */
    public RemeChatMemoryStore(SessionMemory sessions, UnaryOperator<String> userOfSession) {
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        this.userOfSession = Objects.requireNonNull(userOfSession, "userOfSession");
    }

    /** A store whose every session is a conversation of {@code user}, waiting up to 30 s for a write to be served. */
    public static RemeChatMemoryStore forUser(RemeClient client, String user) {
        return new RemeChatMemoryStore(new SessionMemory(client, Duration.ofSeconds(30)), session -> user);
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        return fromChat(sessions.read(session(memoryId)));
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        String session = session(memoryId);
        sessions.append(session, userOfSession.apply(session), toChat(messages));
    }

    @Override
    public void deleteMessages(Object memoryId) {
        throw new UnsupportedOperationException("ReMe keeps a session until it expires: the API erases a whole user"
                + " (RemeClient.eraseUser) or tenant, not one session ('" + memoryId + "')");
    }

    private static String session(Object memoryId) {
        Objects.requireNonNull(memoryId, "memoryId");
        return memoryId.toString();
    }

    /** LangChain4j's messages in the chat-completions shape. */
    static List<OpenAiMessage> toChat(List<ChatMessage> messages) {
        List<OpenAiMessage> chat = new ArrayList<>();
        for (ChatMessage message : messages) {
            chat.add(
                    switch (message) {
                        case SystemMessage system -> OpenAiMessage.system(system.text());
                        case UserMessage user -> userMessage(user);
                        case AiMessage ai ->
                            OpenAiMessage.assistant(
                                    ai.text(),
                                    ai.toolExecutionRequests().stream()
                                            .map(r -> ToolCall.function(r.id(), r.name(), r.arguments()))
                                            .toList());
                        case ToolExecutionResultMessage result ->
                            OpenAiMessage.tool(result.id(), result.text()).withName(result.toolName());
                        default ->
                            throw new IllegalArgumentException("a " + message.type() + " message has no place in a"
                                    + " ReMe session (system, user, AI and tool result messages do)");
                    });
        }
        return chat;
    }

    private static OpenAiMessage userMessage(UserMessage user) {
        String text = user.contents().stream()
                .filter(TextContent.class::isInstance)
                .map(c -> ((TextContent) c).text())
                .collect(Collectors.joining("\n"));
        return OpenAiMessage.user(text).withName(user.name());
    }

    /** The session's messages as LangChain4j's. */
    static List<ChatMessage> fromChat(List<OpenAiMessage> chat) {
        Map<String, String> toolNames = new HashMap<>();
        List<ChatMessage> messages = new ArrayList<>();
        for (OpenAiMessage message : chat) {
            String text = message.text();
            switch (message.role()) {
                case "system" -> messages.add(SystemMessage.from(text == null ? "" : text));
                case "user" ->
                    messages.add(
                            message.name() == null
                                    ? UserMessage.from(List.<Content>of(TextContent.from(text == null ? "" : text)))
                                    : UserMessage.from(message.name(), text == null ? "" : text));
                case "assistant" -> {
                    List<ToolExecutionRequest> requests = new ArrayList<>();
                    for (ToolCall call : message.toolCalls()) {
                        toolNames.put(call.id(), call.function().name());
                        requests.add(ToolExecutionRequest.builder()
                                .id(call.id())
                                .name(call.function().name())
                                .arguments(call.function().arguments())
                                .build());
                    }
                    messages.add(
                            requests.isEmpty()
                                    ? AiMessage.from(text == null ? "" : text)
                                    : AiMessage.from(text, requests));
                }
                case "tool" ->
                    messages.add(ToolExecutionResultMessage.from(
                            message.toolCallId(),
                            message.name() != null ? message.name() : toolNames.get(message.toolCallId()),
                            text == null ? "" : text));
                default -> throw new IllegalStateException("the server served a message of role " + message.role());
            }
        }
        return messages;
    }
}
