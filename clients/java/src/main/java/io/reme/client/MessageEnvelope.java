package io.reme.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One conversation message as the pipeline takes it, on {@code POST /v1/messages} or the {@code messages} topic: the
 * OpenAI chat shape ({@code content} a string or parts, {@code tool_calls}, {@code tool_call_id}) or block-style
 * content. Absent fields are left out of the JSON. {@code tenant} may stay null over HTTP (the key's tenant is
 * taken) and is required on the topic; {@code id} and {@code time} default to a UUID and now on the server, but a
 * caller that may send the same message twice (a retry) sets its own {@code id}, so the session drops the repeat.
 *
 * @param tenant the tenant, or null over HTTP
 * @param session the session, an {@linkplain #isValidId id}
 * @param user the user, an {@linkplain #isValidId id}
 * @param id the message id, or null for one the server picks
 * @param time ISO-8601 with offset or epoch milliseconds, or null for now
 * @param role {@code user}, {@code assistant}, {@code system} or {@code tool}
 * @param content a string, an array of parts, or null (an assistant message with tool calls only)
 * @param toolCalls an assistant's tool calls, or null
 * @param toolCallId the call a {@code tool} message answers, or null
 * @param name the tool's (or participant's) name, or null
 * @param reasoningContent the model's reasoning, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MessageEnvelope(
        String tenant,
        String session,
        String user,
        String id,
        String time,
        String role,
        JsonNode content,
        @JsonProperty("tool_calls") List<ToolCall> toolCalls,
        @JsonProperty("tool_call_id") String toolCallId,
        String name,
        @JsonProperty("reasoning_content") String reasoningContent) {
    /** Tenant, session and user ids: 1 to 64 of {@code [A-Za-z0-9._-]}, starting with a letter or digit. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private static final Set<String> ROLES = Set.of("user", "assistant", "system", "tool");

    public MessageEnvelope {
        requireId("session", session);
        requireId("user", user);
        if (tenant != null) {
            requireId("tenant", tenant);
        }
        if (!ROLES.contains(role)) {
            throw new IllegalArgumentException("role must be one of " + ROLES + ", got " + role);
        }
        toolCalls = toolCalls == null ? null : List.copyOf(toolCalls);
    }

    /** A text message of this role. */
    public static MessageEnvelope text(String session, String user, String role, String text) {
        return new MessageEnvelope(
                null, session, user, null, null, role, TextNode.valueOf(text), null, null, null, null);
    }

    /** A ready-to-send chat message placed in a session of a user. */
    public static MessageEnvelope of(String session, String user, OpenAiMessage message) {
        return new MessageEnvelope(
                null,
                session,
                user,
                null,
                null,
                message.role(),
                message.content(),
                message.toolCalls().isEmpty() ? null : message.toolCalls(),
                message.toolCallId(),
                message.name(),
                null);
    }

    /** Whether the value is a valid tenant, session or user id. */
    public static boolean isValidId(String value) {
        return value != null && ID.matcher(value).matches();
    }

    static String requireId(String what, String value) {
        if (!isValidId(value)) {
            throw new IllegalArgumentException(what
                    + " must be 1 to 64 characters of [A-Za-z0-9._-] starting with a letter or digit, got "
                    + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }

    public MessageEnvelope withTenant(String value) {
        return new MessageEnvelope(
                value, session, user, id, time, role, content, toolCalls, toolCallId, name, reasoningContent);
    }

    public MessageEnvelope withId(String value) {
        return new MessageEnvelope(
                tenant, session, user, value, time, role, content, toolCalls, toolCallId, name, reasoningContent);
    }

    public MessageEnvelope withTime(Instant value) {
        Objects.requireNonNull(value, "time");
        return new MessageEnvelope(
                tenant,
                session,
                user,
                id,
                value.toString(),
                role,
                content,
                toolCalls,
                toolCallId,
                name,
                reasoningContent);
    }

    public MessageEnvelope withToolCalls(List<ToolCall> value) {
        return new MessageEnvelope(
                tenant, session, user, id, time, role, content, value, toolCallId, name, reasoningContent);
    }

    public MessageEnvelope withToolCallId(String value) {
        return new MessageEnvelope(
                tenant, session, user, id, time, role, content, toolCalls, value, name, reasoningContent);
    }

    public MessageEnvelope withName(String value) {
        return new MessageEnvelope(
                tenant, session, user, id, time, role, content, toolCalls, toolCallId, value, reasoningContent);
    }
}
