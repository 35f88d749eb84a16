package io.reme.api.mcp;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.api.Arg;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;

/**
 * An MCP tool's input schema (JSON Schema), generated from the request record its arguments bind to:
 * one property per component marked {@link Arg}, typed from the component's Java type, so the schema
 * cannot drift from what the tool binds.
 */
final class ToolSchema {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ToolSchema() {}

    /** The object schema of {@code type}'s {@link Arg} components, in declaration order. */
    static ObjectNode of(Class<? extends Record> type) {
        ObjectNode schema = NODES.objectNode().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = NODES.arrayNode();
        for (RecordComponent component : type.getRecordComponents()) {
            Arg arg = component.getAnnotation(Arg.class);
            if (arg == null) {
                continue;
            }
            String name = nameOf(component);
            properties.set(name, property(component.getGenericType(), arg));
            if (arg.required()) {
                required.add(name);
            }
        }
        schema.set("required", required);
        return schema;
    }

    /** The component's JSON name: Jackson's {@code @JsonProperty} on its accessor, else its own. */
    private static String nameOf(RecordComponent component) {
        JsonProperty renamed = component.getAccessor().getAnnotation(JsonProperty.class);
        return renamed == null || renamed.value().isEmpty() ? component.getName() : renamed.value();
    }

    private static ObjectNode property(Type type, Arg arg) {
        ObjectNode property = typed(type, arg);
        property.put("description", arg.value() + (arg.instant() ? " (ISO-8601, e.g. 2026-11-30T10:15:00Z)" : ""));
        return property;
    }

    private static ObjectNode typed(Type type, Arg arg) {
        if (type == String.class) {
            ObjectNode string = NODES.objectNode().put("type", "string");
            if (arg.instant()) {
                string.put("format", "date-time");
            }
            if (arg.allowed().length > 0) {
                ArrayNode values = string.putArray("enum");
                for (String value : arg.allowed()) {
                    values.add(value);
                }
            }
            return string;
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            ObjectNode integer = NODES.objectNode().put("type", "integer");
            if (arg.min() != Long.MIN_VALUE) {
                integer.put("minimum", arg.min());
            }
            if (arg.max() != Long.MIN_VALUE) {
                integer.put("maximum", arg.max());
            }
            return integer;
        }
        if (type instanceof ParameterizedType generic && generic.getRawType() == List.class) {
            ObjectNode array = NODES.objectNode().put("type", "array");
            Type item = generic.getActualTypeArguments()[0];
            if (arg.items() != Record.class) {
                array.set("items", of(arg.items()));
            } else if (item == String.class) {
                array.set("items", typed(item, arg));
            }
            return array;
        }
        if (type instanceof ParameterizedType generic && generic.getRawType() == Map.class) {
            ObjectNode object = NODES.objectNode().put("type", "object");
            object.putObject("additionalProperties").put("type", "string");
            return object;
        }
        if (type == JsonNode.class) {
            // Free-form JSON: the description says what it holds.
            ObjectNode json = NODES.objectNode();
            if (!arg.type().isEmpty()) {
                json.put("type", arg.type());
            }
            if (arg.stringValues()) {
                json.putObject("additionalProperties").put("type", "string");
            }
            return json;
        }
        throw new IllegalArgumentException("no JSON schema for a tool argument of type " + type);
    }
}
