package io.reme.message;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.reme.dlq.DlqReason;
import io.reme.dlq.InvalidInputException;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Turns a producer's record into a {@link Message}, or throws {@link InvalidInputException} with
 * the reason it must be dead-lettered. Accepts the OpenAI chat shape ({@code role}, {@code content}
 * string or parts, {@code tool_calls}, {@code tool_call_id}, {@code reasoning_content}) and block
 * style content ({@code text}, {@code thinking}, {@code tool_use}, {@code tool_result},
 * {@code image}). Stateless and thread-safe.
 */
public final class MessageParser {
    private final int maxBytes;
    private final TimeBounds timeBounds;

    /** A parser that accepts any time: for reading what the pipeline accepted already. */
    public MessageParser(int maxBytes) {
        this(maxBytes, TimeBounds.NONE);
    }

    /** A parser that refuses times and record timestamps outside {@code timeBounds}. */
    public MessageParser(int maxBytes, TimeBounds timeBounds) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
        this.maxBytes = maxBytes;
        this.timeBounds = Objects.requireNonNull(timeBounds, "timeBounds");
    }

    /**
     * Parses one record.
     *
     * @param key the record key, which must be {@code tenant/session} of the envelope
     * @param value the JSON envelope
     * @param recordTimeMs used when the envelope has no {@code time}
     * @param fallbackId used when the envelope has no {@code id}
     */
    public Message parse(byte[] key, byte[] value, long recordTimeMs, String fallbackId) {
        return parse(key, value, recordTimeMs, recordTimeMs, fallbackId);
    }

    /**
     * Parses one record, refusing ({@link DlqReason#INVALID_TIME}) a {@code time} or a record timestamp
     * outside the parser's {@link TimeBounds} as seen at {@code nowMs}.
     *
     * @param key the record key, which must be {@code tenant/session} of the envelope
     * @param value the JSON envelope
     * @param recordTimeMs the record's timestamp, used when the envelope has no {@code time}
     * @param nowMs the accepting side's clock (the processor's on the Kafka path)
     * @param fallbackId used when the envelope has no {@code id}
     */
    public Message parse(byte[] key, byte[] value, long recordTimeMs, long nowMs, String fallbackId) {
        if (value == null || value.length == 0) {
            throw new InvalidInputException(DlqReason.MALFORMED_JSON, "empty value");
        }
        if (value.length > maxBytes) {
            throw new InvalidInputException(
                    DlqReason.TOO_LARGE, "message is " + value.length + " bytes, limit is " + maxBytes);
        }
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(value);
        } catch (IOException e) {
            throw new InvalidInputException(DlqReason.MALFORMED_JSON, "not JSON: " + firstLine(e));
        }
        if (root == null || !root.isObject()) {
            throw new InvalidInputException(DlqReason.MALFORMED_JSON, "value must be a JSON object");
        }
        String tenant = id(root, "tenant");
        String session = id(root, "session");
        String user = id(root, "user");
        String expectedKey = tenant + "/" + session;
        String actualKey = key == null ? null : new String(key, StandardCharsets.UTF_8);
        if (!expectedKey.equals(actualKey)) {
            throw new InvalidInputException(
                    DlqReason.KEY_MISMATCH,
                    "key must be '" + expectedKey + "' (tenant/session of the envelope), got "
                            + (actualKey == null ? "no key" : "'" + abbreviate(actualKey) + "'"));
        }
        String roleText = text(root, "role");
        if (roleText == null) {
            throw new InvalidInputException(DlqReason.MISSING_FIELD, "role is required");
        }
        Role role = Role.fromWire(roleText);
        if (role == null) {
            throw new InvalidInputException(
                    DlqReason.INVALID_ROLE,
                    "role must be user, assistant, system or tool, got '" + abbreviate(roleText) + "'");
        }
        String messageId = text(root, "id");
        if (messageId != null && (messageId.isBlank() || messageId.length() > 256)) {
            throw new InvalidInputException(DlqReason.INVALID_ID, "id must be 1-256 characters");
        }
        JsonNode timeField = root.get("time");
        Instant time = time(timeField, recordTimeMs);
        Instant recordTime = Instant.ofEpochMilli(recordTimeMs);
        String badTime = timeBounds.problem(
                timeField == null || timeField.isNull()
                        ? "time (the record timestamp, as the message has none)"
                        : "time",
                time,
                nowMs);
        if (badTime == null) {
            // The record timestamp is the session's clock for pending compactions and backoffs.
            badTime = timeBounds.problem("record timestamp", recordTime, nowMs);
        }
        if (badTime != null) {
            throw new InvalidInputException(DlqReason.INVALID_TIME, badTime);
        }
        List<Block> blocks = content(root, role);
        return new Message(
                tenant,
                session,
                user,
                messageId == null ? fallbackId : messageId,
                role,
                text(root, "name"),
                time,
                blocks);
    }

    private static List<Block> content(JsonNode root, Role role) {
        List<Block> blocks = new ArrayList<>();
        String reasoning = text(root, "reasoning_content");
        if (reasoning != null && !reasoning.isEmpty()) {
            blocks.add(new Block.Thinking(reasoning));
        }
        JsonNode content = root.get("content");
        if (role == Role.TOOL) {
            String callId = text(root, "tool_call_id");
            if (callId == null || callId.isEmpty()) {
                throw new InvalidInputException(DlqReason.MISSING_FIELD, "a tool message needs tool_call_id");
            }
            blocks.add(new Block.ToolResult(callId, text(root, "name"), outputText(content, "content")));
        } else if (content != null && !content.isNull()) {
            if (content.isTextual()) {
                blocks.add(new Block.Text(content.asText()));
            } else if (content.isArray()) {
                int index = 0;
                for (JsonNode part : content) {
                    blocks.add(block(part, index++));
                }
            } else {
                throw new InvalidInputException(
                        DlqReason.INVALID_CONTENT, "content must be a string or an array of parts");
            }
        }
        JsonNode calls = root.get("tool_calls");
        if (calls != null && !calls.isNull()) {
            if (!calls.isArray()) {
                throw new InvalidInputException(DlqReason.INVALID_CONTENT, "tool_calls must be an array");
            }
            int index = 0;
            for (JsonNode call : calls) {
                blocks.add(toolCall(call, index++));
            }
        }
        if (blocks.isEmpty()) {
            throw new InvalidInputException(
                    DlqReason.MISSING_FIELD, "content is required (string, parts, or tool_calls)");
        }
        return blocks;
    }

    private static Block block(JsonNode part, int index) {
        if (!part.isObject()) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, "content[" + index + "] must be an object");
        }
        String type = text(part, "type");
        if (type == null) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, "content[" + index + "] has no type");
        }
        String where = "content[" + index + "] (" + abbreviate(type) + ")";
        return switch (type) {
            case "text" -> new Block.Text(required(part, "text", where));
            case "thinking" -> new Block.Thinking(required(part, "thinking", where));
            case "tool_use" ->
                new Block.ToolUse(
                        required(part, "id", where), required(part, "name", where), arguments(part.get("input")));
            case "tool_result" -> {
                String id = text(part, "id");
                if (id == null) {
                    id = text(part, "tool_use_id");
                }
                if (id == null || id.isEmpty()) {
                    throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " needs id");
                }
                JsonNode output = part.has("output") ? part.get("output") : part.get("content");
                yield new Block.ToolResult(id, text(part, "name"), outputText(output, where + ".output"));
            }
            case "image" -> image(part.get("source"), where);
            case "image_url" -> {
                JsonNode imageUrl = part.get("image_url");
                String url = imageUrl == null ? null : imageUrl.isTextual() ? imageUrl.asText() : text(imageUrl, "url");
                if (url == null || url.isEmpty()) {
                    throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " needs image_url.url");
                }
                yield new Block.Image(url, null, null);
            }
            default ->
                throw new InvalidInputException(
                        DlqReason.INVALID_CONTENT,
                        where
                                + ": unsupported block type; use text, thinking, tool_use, tool_result, image or image_url");
        };
    }

    private static Block image(JsonNode source, String where) {
        if (source == null || !source.isObject()) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " needs a source object");
        }
        String url = text(source, "url");
        String data = text(source, "data");
        if ((url == null || url.isEmpty()) && (data == null || data.isEmpty())) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " needs source.url or source.data");
        }
        return new Block.Image(url, text(source, "media_type"), data);
    }

    private static Block toolCall(JsonNode call, int index) {
        String where = "tool_calls[" + index + "]";
        if (!call.isObject()) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " must be an object");
        }
        JsonNode function = call.get("function");
        if (function == null || !function.isObject()) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " needs a function object");
        }
        return new Block.ToolUse(
                required(call, "id", where),
                required(function, "name", where + ".function"),
                arguments(function.get("arguments")));
    }

    /**
     * A call's arguments as text: JSON given as a structure is written as JSON, a string is kept as it
     * came (OpenAI's {@code arguments} is a string meant to hold JSON, but models emit broken JSON too),
     * never parsed, re-quoted or refused. Nothing downstream parses them: they are shown to a model
     * and archived as text, and refusing the call would orphan the result that answers it.
     */
    private static String arguments(JsonNode arguments) {
        if (arguments == null || arguments.isNull()) {
            return "{}";
        }
        return arguments.isTextual() ? arguments.asText() : jsonText(arguments);
    }

    /** Renders a tool output (string, or a list of parts) as the text the model will read. */
    private static String outputText(JsonNode output, String where) {
        if (output == null || output.isNull()) {
            return "";
        }
        if (output.isTextual()) {
            return output.asText();
        }
        if (!output.isArray()) {
            return jsonText(output);
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : output) {
            if (text.length() > 0) {
                text.append('\n');
            }
            String type = part.isObject() ? text(part, "type") : null;
            if (part.isTextual()) {
                text.append(part.asText());
            } else if ("text".equals(type)) {
                text.append(part.path("text").asText(""));
            } else if ("image".equals(type) || "audio".equals(type) || "video".equals(type)) {
                JsonNode source = part.path("source");
                text.append('[')
                        .append(type)
                        .append("] ")
                        .append(source.path("url").asText("(inline data)"));
            } else if ("file".equals(type)) {
                text.append("[file] ")
                        .append(part.path("name").asText(""))
                        .append(": ")
                        .append(
                                part.has("path")
                                        ? part.path("path").asText()
                                        : part.path("url").asText(""));
            } else {
                throw new InvalidInputException(
                        DlqReason.INVALID_CONTENT,
                        where + " has a part of unsupported type '" + abbreviate(String.valueOf(type)) + "'");
            }
        }
        return text.toString();
    }

    private static Instant time(JsonNode node, long recordTimeMs) {
        if (node == null || node.isNull()) {
            return Instant.ofEpochMilli(recordTimeMs);
        }
        if (node.isIntegralNumber()) {
            if (!node.canConvertToLong()) {
                // asLong() would wrap around silently and give some other time.
                throw new InvalidInputException(DlqReason.INVALID_TIME, "time in epoch milliseconds is out of range");
            }
            return Instant.ofEpochMilli(node.asLong());
        }
        if (node.isTextual()) {
            String value = node.asText();
            try {
                return OffsetDateTime.parse(value).toInstant();
            } catch (DateTimeParseException e) {
                throw new InvalidInputException(
                        DlqReason.INVALID_TIME,
                        "time must be ISO-8601 with an offset (e.g. 2026-11-30T10:15:00Z) or epoch milliseconds, got '"
                                + abbreviate(value) + "'");
            }
        }
        throw new InvalidInputException(DlqReason.INVALID_TIME, "time must be a string or a number");
    }

    private static String id(JsonNode root, String field) {
        String value = text(root, field);
        String problem = SafeId.problem(field, value);
        if (problem != null) {
            throw new InvalidInputException(
                    value == null || value.isEmpty() ? DlqReason.MISSING_FIELD : DlqReason.INVALID_ID, problem);
        }
        return value;
    }

    private static String required(JsonNode node, String field, String where) {
        String value = text(node, field);
        if (value == null) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, where + " needs " + field);
        }
        return value;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isValueNode()) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, field + " must be a string");
        }
        return value.asText();
    }

    private static String jsonText(JsonNode node) {
        if (node == null || node.isNull()) {
            return "{}";
        }
        try {
            return Json.MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new InvalidInputException(DlqReason.INVALID_CONTENT, "cannot render JSON: " + firstLine(e));
        }
    }

    private static String abbreviate(String value) {
        return value.length() > 80 ? value.substring(0, 80) + "…" : value;
    }

    private static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
