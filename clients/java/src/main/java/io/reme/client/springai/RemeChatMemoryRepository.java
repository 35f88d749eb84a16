package io.reme.client.springai;

import io.reme.client.OpenAiMessage;
import io.reme.client.RemeClient;
import io.reme.client.SessionEntry;
import io.reme.client.SessionFilter;
import io.reme.client.SessionMemory;
import io.reme.client.ToolCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Spring AI's {@link ChatMemoryRepository} on ReMe sessions: give it to a {@code MessageWindowChatMemory} and the
 * conversations live in ReMe, compacted there when they grow.
 *
 * <ul>
 *   <li>A conversation id is a session id (1 to 64 characters of {@code [A-Za-z0-9._-]}, starting with a letter or
 *       digit), else {@link IllegalArgumentException}; Spring AI's default id {@code "default"} is one.
 *   <li>{@link #findConversationIds} lists the tenant's sessions (of one user, when the repository was made {@link
 *       #forUser for one}), newest activity first, following every page.
 *   <li>{@link #findByConversationId} is the session's served context ({@code format=openai}): the summary of the
 *       compacted past as a {@link SystemMessage} first when there is one, then the live messages.
 *   <li>{@link #saveAll} appends only the messages the session does not hold yet and waits until the session serves
 *       them ({@link SessionMemory} says how the new ones are found, and what happens to a list that is not an
 *       extension of the session's).
 *   <li>{@link #deleteByConversationId} throws {@link UnsupportedOperationException}: the API erases a whole user or
 *       tenant, never one session, and the session's messages stay until the session expires. To forget a user, call
 *       {@link RemeClient#eraseUser}.
 * </ul>
 *
 * <p>Messages map to the chat-completions shape: user and system texts (media are not kept), an assistant's text
 * and tool calls, and each response of a {@link ToolResponseMessage} as the tool message answering its call (read
 * back, consecutive tool messages make one {@code ToolResponseMessage}, as Spring AI writes them).
 */
public final class RemeChatMemoryRepository implements ChatMemoryRepository {
    private final RemeClient client;
    private final SessionMemory sessions;
    private final UnaryOperator<String> userOfSession;
    private final String onlyUser;

    /**
     * A repository whose sessions belong to the users {@code userOfSession} names; {@link #findConversationIds} lists
     * every session of the tenant.
     */
    public RemeChatMemoryRepository(RemeClient client, SessionMemory sessions, UnaryOperator<String> userOfSession) {
        this(client, sessions, userOfSession, null);
    }

    private RemeChatMemoryRepository(
            RemeClient client, SessionMemory sessions, UnaryOperator<String> userOfSession, String onlyUser) {
        this.client = Objects.requireNonNull(client, "client");
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        this.userOfSession = Objects.requireNonNull(userOfSession, "userOfSession");
        this.onlyUser = onlyUser;
    }

    /**
     * A repository whose every conversation is a session of {@code user} (and lists only theirs), waiting up to 30 s
     * for a write to be served.
     */
    public static RemeChatMemoryRepository forUser(RemeClient client, String user) {
        return new RemeChatMemoryRepository(
                client, new SessionMemory(client, Duration.ofSeconds(30)), session -> user, user);
    }

    @Override
    public List<String> findConversationIds() {
        SessionFilter filter =
                onlyUser == null ? SessionFilter.all() : SessionFilter.all().withUser(onlyUser);
        return client.sessions(filter).map(SessionEntry::session).toList();
    }

    @Override
    public List<Message> findByConversationId(String conversationId) {
        return fromChat(sessions.read(conversationId));
    }

    @Override
    public void saveAll(String conversationId, List<Message> messages) {
        sessions.append(conversationId, userOfSession.apply(conversationId), toChat(messages));
    }

    @Override
    public void deleteByConversationId(String conversationId) {
        throw new UnsupportedOperationException("ReMe keeps a session until it expires: the API erases a whole user"
                + " (RemeClient.eraseUser) or tenant, not one session ('" + conversationId + "')");
    }

    /** Spring AI's messages in the chat-completions shape. */
    static List<OpenAiMessage> toChat(List<Message> messages) {
        List<OpenAiMessage> chat = new ArrayList<>();
        for (Message message : messages) {
            switch (message) {
                case SystemMessage system -> chat.add(OpenAiMessage.system(orEmpty(system.getText())));
                case UserMessage user -> chat.add(OpenAiMessage.user(orEmpty(user.getText())));
                case AssistantMessage assistant ->
                    chat.add(OpenAiMessage.assistant(
                            assistant.getText(),
                            assistant.getToolCalls().stream()
                                    .map(call -> ToolCall.function(call.id(), call.name(), call.arguments()))
                                    .toList()));
                case ToolResponseMessage tool -> {
                    for (ToolResponseMessage.ToolResponse response : tool.getResponses()) {
                        chat.add(OpenAiMessage.tool(response.id(), orEmpty(response.responseData()))
                                .withName(response.name()));
                    }
                }
                default ->
                    throw new IllegalArgumentException("a " + message.getMessageType() + " message has no place in"
                            + " a ReMe session (system, user, assistant and tool messages do)");
            }
        }
        return chat;
    }

    /** The session's messages as Spring AI's. */
    static List<Message> fromChat(List<OpenAiMessage> chat) {
        Map<String, String> toolNames = new HashMap<>();
        List<Message> messages = new ArrayList<>();
        List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>();
        for (OpenAiMessage message : chat) {
            if (!"tool".equals(message.role()) && !responses.isEmpty()) {
                messages.add(toolResponses(responses));
            }
            String text = orEmpty(message.text());
            switch (message.role()) {
                case "system" -> messages.add(new SystemMessage(text));
                case "user" -> messages.add(new UserMessage(text));
                case "assistant" -> {
                    List<AssistantMessage.ToolCall> calls = new ArrayList<>();
                    for (ToolCall call : message.toolCalls()) {
                        toolNames.put(call.id(), call.function().name());
                        calls.add(new AssistantMessage.ToolCall(
                                call.id(),
                                call.type(),
                                call.function().name(),
                                call.function().arguments()));
                    }
                    messages.add(AssistantMessage.builder()
                            .content(text)
                            .toolCalls(calls)
                            .build());
                }
                case "tool" ->
                    responses.add(new ToolResponseMessage.ToolResponse(
                            message.toolCallId(),
                            message.name() != null ? message.name() : orEmpty(toolNames.get(message.toolCallId())),
                            text));
                default -> throw new IllegalStateException("the server served a message of role " + message.role());
            }
        }
        if (!responses.isEmpty()) {
            messages.add(toolResponses(responses));
        }
        return messages;
    }

    /** One message of the responses gathered so far, which it empties. */
    private static ToolResponseMessage toolResponses(List<ToolResponseMessage.ToolResponse> responses) {
        ToolResponseMessage message =
                ToolResponseMessage.builder().responses(List.copyOf(responses)).build();
        responses.clear();
        return message;
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }
}
