package io.reme.message;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.Objects;

/**
 * One typed piece of a message's content. Both input shapes (OpenAI chat and block style) are
 * normalised into these five kinds so that token counting, tool pairing and truncation have one
 * model to work on.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Block.Text.class, name = "text"),
    @JsonSubTypes.Type(value = Block.Thinking.class, name = "thinking"),
    @JsonSubTypes.Type(value = Block.ToolUse.class, name = "tool_use"),
    @JsonSubTypes.Type(value = Block.ToolResult.class, name = "tool_result"),
    @JsonSubTypes.Type(value = Block.Image.class, name = "image")
})
public sealed interface Block {

    /** Plain text. */
    record Text(String text) implements Block {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /** The model's reasoning, kept because it is part of the context the model saw. */
    record Thinking(String thinking) implements Block {
        public Thinking {
            Objects.requireNonNull(thinking, "thinking");
        }
    }

    /**
     * A tool call; {@code input} is the call's arguments as text, exactly as produced: JSON as a rule, but
     * kept as it came when it is not (so consumers must treat it as opaque text, never parse it).
     */
    record ToolUse(String id, String name, String input) implements Block {
        public ToolUse {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(name, "name");
            input = input == null ? "{}" : input;
        }
    }

    /** A tool's output, paired with its call by {@code id}; {@code output} is rendered as text. */
    record ToolResult(String id, String name, String output) implements Block {
        public ToolResult {
            Objects.requireNonNull(id, "id");
            name = name == null ? "" : name;
            output = output == null ? "" : output;
        }

        public ToolResult withOutput(String newOutput) {
            return new ToolResult(id, name, newOutput);
        }
    }

    /** An image by URL or inline base64 data; its token cost is a configured constant. */
    record Image(String url, String mediaType, String data) implements Block {
        public Image {
            if (url == null && data == null) {
                throw new IllegalArgumentException("image needs a url or data");
            }
        }
    }
}
