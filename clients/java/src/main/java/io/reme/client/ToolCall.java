package io.reme.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * An assistant's call of a tool, in the OpenAI chat shape: {@code {id, type: "function", function: {name,
 * arguments}}}, the arguments a JSON text.
 *
 * @param id the call's id, which the {@code tool} message answering it names
 * @param type {@code function}
 * @param function the tool and its arguments
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCall(String id, String type, Function function) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(function, "function");
        type = type == null ? "function" : type;
    }

    /** A function call of this id, tool name and JSON arguments. */
    public static ToolCall function(String id, String name, String arguments) {
        return new ToolCall(id, "function", new Function(name, arguments));
    }

    /**
     * The tool called and its arguments.
     *
     * @param name the tool's name
     * @param arguments its arguments, a JSON text
     */
    public record Function(String name, String arguments) {
        public Function {
            Objects.requireNonNull(name, "name");
            arguments = arguments == null ? "{}" : arguments;
        }
    }
}
