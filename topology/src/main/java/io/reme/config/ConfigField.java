package io.reme.config;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration option: its property name, environment variable, default, how to parse and
 * validate a value, and its documentation. The parser throws {@link IllegalArgumentException} with
 * a message saying what is wrong; {@link AppConfig} prefixes it with the option's name.
 */
public record ConfigField<T>(String name, String defaultValue, String doc, Function<String, T> parser) {

    public ConfigField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(parser, "parser");
    }

    /** {@code reme.context.max-input-length} is read from {@code REME_CONTEXT_MAX_INPUT_LENGTH}. */
    public String envName() {
        return envNameOf(name);
    }

    static String envNameOf(String property) {
        return property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    public T parse(String raw) {
        return parser.apply(raw == null ? null : raw.trim());
    }
}
