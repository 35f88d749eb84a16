package io.reme.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Offers a request record's component as an MCP tool argument, and says what the tool's input schema
 * tells a model about it ({@code io.reme.api.mcp.ToolSchema}). A component without it is still bound when sent, but
 * not advertised.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Arg {
    /** What the argument is, for the model. */
    String value();

    boolean required() default false;

    /** The only values a string (or each string of a list) may take; empty for any. */
    String[] allowed() default {};

    /** A whole number's bounds, inclusive; {@link Long#MIN_VALUE} for none. */
    long min() default Long.MIN_VALUE;

    long max() default Long.MIN_VALUE;

    /** An ISO-8601 instant, written as a string. */
    boolean instant() default false;

    /** A free-form JSON component's type ({@code object}, {@code array}); empty to leave it open. */
    String type() default "";

    /** An object component whose values are all strings. */
    boolean stringValues() default false;

    /** For a list of JSON objects: the record that describes each. */
    Class<? extends Record> items() default Record.class;
}
