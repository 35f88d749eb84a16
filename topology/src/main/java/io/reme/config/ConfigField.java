package io.reme.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration option: its property name, environment variable, default, how to parse and
 * validate a value, and its documentation. The parser throws {@link IllegalArgumentException} with
 * a message saying what is wrong; {@link AppConfig} prefixes it with the option's name.
 */
public record ConfigField<T>(String name, String defaultValue, String doc, Function<String, T> parser, String env) {

    public ConfigField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(parser, "parser");
    }

    /** An option whose environment variable is derived from its name. */
    public ConfigField(String name, String defaultValue, String doc, Function<String, T> parser) {
        this(name, defaultValue, doc, parser, null);
    }

    /**
     * {@code reme.context.max-input-length} is read from {@code REME_CONTEXT_MAX_INPUT_LENGTH}; options
     * with a conventional variable of their own (such as {@code LLM_BASE_URL}) use that.
     */
    public String envName() {
        return env != null ? env : envNameOf(name);
    }

    static String envNameOf(String property) {
        return property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    public T parse(String raw) {
        return parser.apply(raw == null ? null : raw.trim());
    }

    /**
     * The options {@code owner} declares: its static {@code ConfigField} constants, in the order written. So an
     * option is declared once, as its constant, and no list can miss one. Call it after the last constant (static
     * initialisers run in order): a constant still null is refused, naming it.
     */
    static List<ConfigField<?>> declaredIn(Class<?> owner) {
        List<ConfigField<?>> fields = new ArrayList<>();
        for (Field field : owner.getDeclaredFields()) {
            if (field.getType() != ConfigField.class || !Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            Object value;
            try {
                field.setAccessible(true);
                value = field.get(null);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read option " + field.getName(), e);
            }
            if (value == null) {
                throw new IllegalStateException(owner.getSimpleName() + "." + field.getName()
                        + " is declared after the list of options is made; move it above");
            }
            fields.add((ConfigField<?>) value);
        }
        return List.copyOf(fields);
    }
}
