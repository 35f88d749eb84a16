package io.reme.api.context;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.api.ApiException;
import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A session's served context in the shape a chat API takes as its input, so an agent can send it as
 * it is: OpenAI chat completions ({@code messages} with the summary as the first {@code system}
 * message) or Anthropic messages ({@code system} apart, content blocks).
 *
 * <p>Both APIs refuse a tool call that is not answered right after it, so results are moved to
 * follow their call (each assistant message's calls are answered by the next messages, in call order);
 * a call with no result in the view gets a stated placeholder result unless it is in the last message
 * (the agent is about to run it); a result whose call is not in the view becomes text. Reasoning
 * ({@code thinking}) is left out: OpenAI's input has no field for it and Anthropic's requires the
 * signature it was produced with, which is not stored. Truncated tool outputs keep their notice (it is
 * part of the output text). Token counts are the view's, as stored.
 */
final class ReadyContext {
    /** What is sent for a call whose result is not in the served messages (and is not the last message). */
    static final String NO_RESULT = "[no result was recorded for this tool call]";

    /** OpenAI's rule for a participant's {@code name}; other names are left out rather than refused. */
    private static final Pattern OPENAI_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** The shapes a context can be asked for; {@code null} from {@link #parse} is the default view. */
    enum Format {
        OPENAI,
        ANTHROPIC;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The format of a {@code format=} value; a 400 naming {@code format} for anything else. */
        static Format parse(String value) {
            for (Format format : values()) {
                if (format.wire().equals(value)) {
                    return format;
                }
            }
            throw new ApiException(
                    400,
                    "invalid_query",
                    "'format' must be openai or anthropic (or left out for the full view); got '" + value + "'");
        }
    }

    /** {@code GET .../context?format=openai}: the messages to send, and the view's token totals. */
    record OpenAi(List<JsonNode> messages, SessionView.Tokens tokens) {}

    /** {@code GET .../context?format=anthropic}: the system text (empty when none), the messages, the totals. */
    record Anthropic(String system, List<JsonNode> messages, SessionView.Tokens tokens) {}

    private ReadyContext() {}

    static Object of(SessionView view, Format format) {
        return switch (format) {
            case OPENAI -> openAi(view);
            case ANTHROPIC -> anthropic(view);
        };
    }

    static OpenAi openAi(SessionView view) {
        List<JsonNode> out = new ArrayList<>();
        if (!view.summary().isBlank()) {
            out.add(Json.MAPPER.createObjectNode().put("role", "system").put("content", view.summary()));
        }
        for (Turn turn : pair(view.messages())) {
            Message message = turn.message();
            List<Block> blocks = turn.blocks();
            switch (turn.role()) {
                case SYSTEM, USER -> {
                    ArrayNode parts = openAiParts(blocks);
                    if (!parts.isEmpty()) {
                        out.add(openAiMessage(message, turn.role().wire(), parts));
                    }
                }
                case ASSISTANT -> {
                    ArrayNode parts = openAiParts(blocks);
                    ArrayNode calls = Json.MAPPER.createArrayNode();
                    for (Block block : blocks) {
                        if (block instanceof Block.ToolUse use) {
                            ObjectNode call =
                                    calls.addObject().put("id", use.id()).put("type", "function");
                            call.putObject("function").put("name", use.name()).put("arguments", use.input());
                        }
                    }
                    if (parts.isEmpty() && calls.isEmpty()) {
                        continue;
                    }
                    ObjectNode assistant = parts.isEmpty()
                            ? Json.MAPPER.createObjectNode().put("role", "assistant")
                            : openAiMessage(message, "assistant", parts);
                    if (!calls.isEmpty()) {
                        assistant.set("tool_calls", calls);
                    }
                    out.add(assistant);
                }
                case TOOL -> {
                    for (Block block : blocks) {
                        if (block instanceof Block.ToolResult result) {
                            out.add(openAiToolMessage(result));
                        }
                    }
                }
            }
        }
        return new OpenAi(out, view.tokens());
    }

    /** The message with its content as one string when it is all text, else as parts. */
    private static ObjectNode openAiMessage(Message message, String role, ArrayNode parts) {
        ObjectNode node = Json.MAPPER.createObjectNode().put("role", role);
        boolean allText = true;
        for (JsonNode part : parts) {
            allText &= "text".equals(part.path("type").asText());
        }
        if (allText && parts.size() == 1) {
            node.put("content", parts.get(0).path("text").asText());
        } else {
            node.set("content", parts);
        }
        // A tool's name on a TOOL message turned into text is not a participant's name.
        if (message.name() != null
                && message.role() != Role.TOOL
                && OPENAI_NAME.matcher(message.name()).matches()) {
            node.put("name", message.name());
        }
        return node;
    }

    private static ObjectNode openAiToolMessage(Block.ToolResult result) {
        return Json.MAPPER
                .createObjectNode()
                .put("role", "tool")
                .put("tool_call_id", result.id())
                .put("content", result.output());
    }

    /** Text and images as OpenAI content parts; calls, results and reasoning are not content. */
    private static ArrayNode openAiParts(List<Block> blocks) {
        ArrayNode parts = Json.MAPPER.createArrayNode();
        for (Block block : blocks) {
            switch (block) {
                case Block.Text text -> parts.addObject().put("type", "text").put("text", text.text());
                case Block.Image image ->
                    parts.addObject()
                            .put("type", "image_url")
                            .putObject("image_url")
                            .put("url", imageUrl(image));
                default -> {}
            }
        }
        return parts;
    }

    private static String imageUrl(Block.Image image) {
        return image.url() != null
                ? image.url()
                : "data:" + (image.mediaType() == null ? "image/png" : image.mediaType()) + ";base64," + image.data();
    }

    static Anthropic anthropic(SessionView view) {
        StringBuilder system = new StringBuilder(view.summary().strip());
        List<ObjectNode> out = new ArrayList<>();
        for (Turn turn : pair(view.messages())) {
            if (turn.role() == Role.SYSTEM) {
                // Anthropic takes no system turns: system text joins the system prompt, in order.
                for (Block block : turn.blocks()) {
                    if (block instanceof Block.Text text) {
                        system.append(system.isEmpty() ? "" : "\n\n").append(text.text());
                    }
                }
                continue;
            }
            String role = turn.role() == Role.ASSISTANT ? "assistant" : "user";
            ArrayNode content = Json.MAPPER.createArrayNode();
            for (Block block : turn.blocks()) {
                switch (block) {
                    case Block.Text text ->
                        content.addObject().put("type", "text").put("text", text.text());
                    case Block.Image image -> content.add(anthropicImage(image));
                    case Block.ToolUse use -> {
                        ObjectNode node = content.addObject()
                                .put("type", "tool_use")
                                .put("id", use.id())
                                .put("name", use.name());
                        node.set("input", toolInput(use.input()));
                    }
                    case Block.ToolResult result ->
                        content.addObject()
                                .put("type", "tool_result")
                                .put("tool_use_id", result.id())
                                .put("content", result.output());
                    default -> {}
                }
            }
            if (content.isEmpty()) {
                continue;
            }
            ObjectNode last = out.isEmpty() ? null : out.getLast();
            if (last != null && last.path("role").asText().equals(role)) {
                // Turns alternate: a second user message (say, results and then a question) joins the first,
                // and results stay ahead of text, as the API asks of the message that answers calls.
                ArrayNode merged = (ArrayNode) last.get("content");
                merged.addAll(content);
                last.set("content", resultsFirst(merged));
            } else {
                ObjectNode node = Json.MAPPER.createObjectNode().put("role", role);
                node.set("content", resultsFirst(content));
                out.add(node);
            }
        }
        return new Anthropic(system.toString(), List.copyOf(out), view.tokens());
    }

    private static ArrayNode resultsFirst(ArrayNode content) {
        ArrayNode ordered = Json.MAPPER.createArrayNode();
        content.forEach(block -> {
            if ("tool_result".equals(block.path("type").asText())) {
                ordered.add(block);
            }
        });
        content.forEach(block -> {
            if (!"tool_result".equals(block.path("type").asText())) {
                ordered.add(block);
            }
        });
        return ordered;
    }

    private static ObjectNode anthropicImage(Block.Image image) {
        ObjectNode node = Json.MAPPER.createObjectNode().put("type", "image");
        ObjectNode source = node.putObject("source");
        if (image.url() != null) {
            source.put("type", "url").put("url", image.url());
        } else {
            source.put("type", "base64")
                    .put("media_type", image.mediaType() == null ? "image/png" : image.mediaType())
                    .put("data", image.data());
        }
        return node;
    }

    /**
     * Anthropic wants the call's input as an object; the stored arguments are opaque text (a model may
     * have produced broken JSON), so anything but a JSON object is passed as {@code {"arguments": text}}.
     */
    private static JsonNode toolInput(String input) {
        try {
            JsonNode parsed = Json.MAPPER.readTree(input);
            if (parsed != null && parsed.isObject()) {
                return parsed;
            }
        } catch (IOException e) {
            // falls through: not JSON
        }
        return Json.MAPPER.createObjectNode().put("arguments", input);
    }

    /**
     * One message to send: its role (TOOL for results moved after their call), the stored message it
     * comes from (for the name) and the blocks that go with it.
     */
    private record Turn(Role role, Message message, List<Block> blocks) {}

    /**
     * The messages in order, with every result moved to follow the message that made its call (results
     * of one message's calls in call order, as their own TOOL turn), results without a call in the view
     * turned into text, calls without a result answered by {@link #NO_RESULT} unless in the last message.
     */
    private static List<Turn> pair(List<StoredMessage> stored) {
        Map<String, Block.ToolResult> results = new HashMap<>();
        Set<String> called = new HashSet<>();
        for (StoredMessage entry : stored) {
            for (Block block : entry.message().content()) {
                if (block instanceof Block.ToolResult result) {
                    results.putIfAbsent(result.id(), result);
                } else if (block instanceof Block.ToolUse use) {
                    called.add(use.id());
                }
            }
        }
        List<Turn> turns = new ArrayList<>();
        Set<String> answered = new HashSet<>();
        for (int i = 0; i < stored.size(); i++) {
            Message message = stored.get(i).message();
            boolean lastMessage = i == stored.size() - 1;
            List<Block> blocks = new ArrayList<>();
            List<Block> answers = new ArrayList<>();
            for (Block block : message.content()) {
                switch (block) {
                    case Block.Thinking thinking -> {}
                    case Block.ToolResult result -> {
                        if (!called.contains(result.id())) {
                            blocks.add(new Block.Text(
                                    "[tool result " + result.id() + "] " + result.name() + ": " + result.output()));
                        }
                        // else it was sent after its call (or is a repeat of a result sent there)
                    }
                    case Block.ToolUse use -> {
                        blocks.add(use);
                        Block.ToolResult result = results.get(use.id());
                        if (result != null && answered.add(use.id())) {
                            answers.add(result);
                        } else if (result == null && !lastMessage) {
                            answers.add(new Block.ToolResult(use.id(), use.name(), NO_RESULT));
                        }
                    }
                    default -> blocks.add(block);
                }
            }
            if (!blocks.isEmpty()) {
                turns.add(new Turn(message.role() == Role.TOOL ? Role.USER : message.role(), message, blocks));
            }
            if (!answers.isEmpty()) {
                turns.add(new Turn(Role.TOOL, message, answers));
            }
        }
        return turns;
    }
}
