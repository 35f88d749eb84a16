package io.reme.api.memory;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.reme.api.ApiException;
import io.reme.api.Arg;
import io.reme.api.BodyBinder;
import io.reme.api.QueryString;
import io.reme.json.Json;
import io.reme.search.MemoryListQuery;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a memory listing asks, as sent: {@code GET /v1/memories}' query parameters, or the
 * {@code list_memories} tool's arguments. {@link MemoryInput#listQuery} checks it into the index's
 * query. Each list holds the values as given (a {@code type} value may name several, comma-separated).
 *
 * @param meta {@code meta.<key>=<value>} parameters, by key
 */
public record MemoryListRequest(
        @Arg(
                value = "only these kinds",
                allowed = {"personal", "procedural", "tool", "diary_chunk", "dialog_chunk"})
        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> type,

        @Arg("only memories about these targets") @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> target,

        @Arg("only memories of these users") @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> user,

        @Arg(value = "sort time at or after", instant = true)
        String from,

        @Arg(value = "sort time before", instant = true) String to,

        @Arg(
                value = "the time to sort by (default created)",
                allowed = {"created", "updated", "conversation"})
        String sort,

        @Arg(
                value = "default desc",
                allowed = {"asc", "desc"})
        String order,

        @Arg(
                value = "page size (default " + MemoryListQuery.DEFAULT_LIMIT + ")",
                min = 1,
                max = MemoryListQuery.MAX_LIMIT)
        Integer limit,

        @Arg("nextCursor of the previous page") String cursor,
        @Arg("metadata properties that must match exactly") Map<String, String> meta) {
    private static final Set<String> NAMES =
            Set.of("type", "target", "user", "from", "to", "sort", "order", "limit", "cursor");
    private static final String META = "meta.";
    /** The tool's arguments bind like a body, but an unknown one is the listing's own 400. */
    private static final ObjectReader ARGUMENTS =
            Json.MAPPER.readerFor(MemoryListRequest.class).with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public MemoryListRequest {
        type = type == null ? List.of() : List.copyOf(type);
        target = target == null ? List.of() : List.copyOf(target);
        user = user == null ? List.of() : List.copyOf(user);
        meta = meta == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(meta));
    }

    /** Binds the query parameters; a repeated single-valued parameter's last value wins. */
    public static MemoryListRequest of(QueryString query) {
        Map<String, String> meta = new LinkedHashMap<>();
        for (String name : query.names()) {
            if (NAMES.contains(name)) {
                continue;
            }
            if (!name.startsWith(META) || name.length() == META.length()) {
                throw unknown(name);
            }
            meta.put(name.substring(META.length()), query.last(name));
        }
        return new MemoryListRequest(
                query.values("type"),
                query.values("target"),
                query.values("user"),
                query.last("from"),
                query.last("to"),
                query.last("sort"),
                query.last("order"),
                limit(query.last("limit")),
                query.last("cursor"),
                meta);
    }

    /** Binds the {@code list_memories} tool's arguments (a JSON object with the same names, {@code meta} an object). */
    public static MemoryListRequest of(JsonNode arguments) {
        try {
            return ARGUMENTS.readValue(arguments);
        } catch (UnrecognizedPropertyException e) {
            throw unknown(e.getPropertyName());
        } catch (JsonProcessingException e) {
            throw MemoryInput.invalid("the arguments do not fit the listing: "
                    + (e instanceof JsonMappingException mapping ? BodyBinder.problem(mapping) : "not valid JSON"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Integer limit(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw MemoryInput.invalid("'limit' must be a number (got '" + value + "')");
        }
    }

    private static ApiException unknown(String name) {
        return MemoryInput.invalid("unknown parameter '" + name + "'; use type, target, user, from, to, "
                + "meta.<key>, sort, order, limit, cursor");
    }
}
