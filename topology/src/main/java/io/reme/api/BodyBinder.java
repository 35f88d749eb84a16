package io.reme.api;

import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.reme.json.Json;
import java.io.IOException;
import java.time.temporal.Temporal;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The API's one place where a JSON body becomes a request record: binds it with Jackson, turns any
 * binding failure into a {@code 400} that names the field (by its JSON path), then runs the record's
 * {@link RequestBody#validate} (a record of the topics' own, such as {@code TenantPolicy}, validates in
 * its constructor, whose {@link IllegalArgumentException} is a 400 too). Stricter than {@link Json#MAPPER} (which reads the topics' records,
 * where unknown fields are forward compatibility): nothing may follow the JSON value, an unknown field is refused unless the record says
 * {@code @JsonIgnoreProperties(ignoreUnknown = true)}, and no value changes type on the way in (no
 * {@code "5"} for 5, no 2.5 for 2, no 42 for {@code "42"}). Thread-safe.
 */
public final class BodyBinder {
    private static final ObjectReader READER = reader();

    private BodyBinder() {}

    private static ObjectReader reader() {
        ObjectMapper strict = Json.MAPPER.copy();
        strict.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        strict.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        // One JSON value and nothing after it: "{...} junk" is not JSON.
        strict.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        strict.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        strict.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        strict.coercionConfigFor(LogicalType.Float)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        strict.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        strict.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return strict.reader();
    }

    /**
     * The body as a {@code type}, validated. No body at all binds as {@code {}}, so a required field
     * is refused by the record's own rule, as when the body leaves it out.
     *
     * @param code the error code of the route's 400s ({@code invalid_query}, {@code invalid_memory}, ...)
     * @throws ApiException 400 {@code malformed_json} for a body that is not JSON, 400 {@code code} for
     *     JSON that is not a {@code type} or does not validate
     */
    public static <T> T bind(byte[] body, Class<T> type, String code) {
        T bound;
        try {
            bound = READER.readValue(body == null || body.length == 0 ? new byte[] {'{', '}'} : body, type);
        } catch (InvalidDefinitionException e) {
            // The record itself cannot be bound: a bug here, not a bad request.
            throw new IllegalStateException("cannot bind " + type.getSimpleName(), e);
        } catch (JsonMappingException e) {
            throw new ApiException(400, code, problem(e));
        } catch (IOException e) {
            throw new ApiException(400, "malformed_json", "request body is not JSON");
        }
        return validated(bound, code);
    }

    /**
     * A body already parsed (an MCP tool's arguments) as a {@code type}, by the same rules as {@link
     * #bind(byte[], Class, String)}.
     */
    public static <T> T bind(JsonNode body, Class<T> type, String code) {
        T bound;
        try {
            bound = READER.forType(type)
                    .readValue(body == null || body.isMissingNode() ? Json.MAPPER.createObjectNode() : body);
        } catch (InvalidDefinitionException e) {
            throw new IllegalStateException("cannot bind " + type.getSimpleName(), e);
        } catch (JsonMappingException e) {
            throw new ApiException(400, code, problem(e));
        } catch (IOException e) {
            throw new ApiException(400, "malformed_json", "request body is not JSON");
        }
        return validated(bound, code);
    }

    private static <T> T validated(T bound, String code) {
        if (bound == null) {
            // The body was the JSON literal null.
            throw new ApiException(400, code, "the body must be a JSON object");
        }
        if (bound instanceof RequestBody body) {
            body.validate();
        }
        return bound;
    }

    /** What is wrong with the body, naming the field by its path ({@code timeRange.from}). */
    public static String problem(JsonMappingException e) {
        StringJoiner field = new StringJoiner(".");
        Integer index = null;
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                field.add(reference.getFieldName());
                index = null;
            } else if (reference.getIndex() >= 0) {
                index = reference.getIndex();
            }
        }
        String path = field.toString();
        if (e instanceof UnrecognizedPropertyException unknown) {
            String parent = path.contains(".") ? path.substring(0, path.lastIndexOf('.')) + "." : "";
            return "unknown field '" + parent + unknown.getPropertyName() + "'; accepted: "
                    + new TreeSet<>(unknown.getKnownPropertyIds().stream()
                            .map(String::valueOf)
                            .toList());
        }
        if (e instanceof ValueInstantiationException && e.getCause() instanceof IllegalArgumentException refused) {
            // A compact constructor's rule, which names its field itself.
            return refused.getMessage();
        }
        if (path.isEmpty()) {
            return "the body must be a JSON object";
        }
        String where = "'" + path + "'" + (index == null ? "" : " (item " + index + ")");
        if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            return where + " must be " + expected(mismatch.getTargetType());
        }
        return where + " is not valid" + why(e);
    }

    private static String expected(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class || type == Float.class || type == float.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type.isEnum()) {
            return "one of "
                    + Arrays.stream(type.getEnumConstants())
                            .map(value -> value.toString().toLowerCase(Locale.ROOT))
                            .collect(Collectors.joining(", "));
        }
        if (Temporal.class.isAssignableFrom(type)) {
            return "an ISO-8601 instant, such as 2026-11-30T10:00:00Z";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord()) {
            return "an object";
        }
        return "another kind of value";
    }

    /** Why a value is not valid, in the API's words: the JSON library's own message names its classes. */
    private static String why(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof InputCoercionException) {
                return ": out of range";
            }
            if (cause instanceof StreamConstraintsException) {
                return ": nested too deeply or too long";
            }
        }
        return "";
    }
}
