package io.reme.message;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Who spoke a message. {@code TOOL} is the OpenAI role for a message carrying a tool's output. */
public enum Role {
    USER,
    ASSISTANT,
    SYSTEM,
    TOOL;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses the wire form; returns null for anything unknown so the caller can reject it. */
    @JsonCreator
    public static Role fromWire(String value) {
        if (value == null) {
            return null;
        }
        return switch (value) {
            case "user" -> USER;
            case "assistant" -> ASSISTANT;
            case "system" -> SYSTEM;
            case "tool" -> TOOL;
            default -> null;
        };
    }
}
