package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.search.MemoryListQuery;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads and checks what callers send to the memory endpoints. Every problem is a 400 whose message
 * names the field and what is accepted.
 */
public final class MemoryInput {
    /** Most values of one filter of a memory listing (meta.* keys, targets, users). */
    static final int MAX_FILTER_VALUES = 64;

    static final int MAX_CONTENT_CHARS = 16_000;
    static final int MAX_METADATA_ENTRIES = 32;
    static final int MAX_METADATA_CHARS = 256;
    /** The earliest time a caller may give: the epoch (no memory is older than computers that keep it). */
    static final Instant EARLIEST = Instant.EPOCH;
    /** The latest time a caller may give: the last instant of year 9999, what ISO-8601 writes in four digits. */
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");
    /** The types callers write; diary and dialog chunks are written by the pipeline only. */
    static final Set<MemoryType> WRITABLE = Set.of(MemoryType.PERSONAL, MemoryType.PROCEDURAL, MemoryType.TOOL);

    private MemoryInput() {}

    public static final String INVALID = "invalid_memory";

    static ApiException invalid(String message) {
        return new ApiException(400, INVALID, message);
    }

    static MemoryType writableType(String value) {
        if (value == null) {
            throw invalid("'type' is required: personal, procedural or tool");
        }
        MemoryType type = type(value);
        if (!WRITABLE.contains(type)) {
            throw invalid("'type' must be personal, procedural or tool (got '" + value + "')");
        }
        return type;
    }

    static MemoryType type(String value) {
        try {
            return MemoryType.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("unknown memory type '" + value + "'; use personal, procedural, tool, diary_chunk or "
                    + "dialog_chunk");
        }
    }

    /** The content, or null when absent and not required. */
    static String content(String value, boolean required) {
        if (value == null) {
            if (required) {
                throw invalid("'content' is required");
            }
            return null;
        }
        if (value.isBlank()) {
            throw invalid("'content' must be a non-empty string");
        }
        if (value.length() > MAX_CONTENT_CHARS) {
            throw invalid("'content' is longer than " + MAX_CONTENT_CHARS + " characters");
        }
        return value.strip();
    }

    /**
     * The optional text around a memory that helps find it (the turns before and after, the section
     * it came from); null when absent.
     */
    static String context(String value) {
        if (value == null) {
            return null;
        }
        if (value.length() > MemoryRecord.MAX_CONTEXT_LENGTH) {
            throw invalid("'context' is longer than " + MemoryRecord.MAX_CONTEXT_LENGTH + " characters");
        }
        return value.isBlank() ? null : value.strip();
    }

    /** A memory's id from a path or a tool's arguments; 400 unless a safe id. */
    public static String memoryId(String id) {
        String problem = SafeId.problem("memory id", id);
        if (problem != null) {
            throw new ApiException(400, "invalid_memory", problem);
        }
        return id;
    }

    /** An optional safe id (user, session); null when absent. */
    static String safeId(String field, String value) {
        if (value == null) {
            return null;
        }
        String problem = SafeId.problem(field, value);
        if (problem != null) {
            throw invalid(problem);
        }
        return value;
    }

    static String target(String value) {
        if (value == null) {
            return null;
        }
        if (value.isBlank()
                || value.length() > MemoryRecord.MAX_TARGET_LENGTH
                || value.chars().anyMatch(Character::isISOControl)) {
            throw invalid("'target' must be a string of 1.." + MemoryRecord.MAX_TARGET_LENGTH
                    + " characters without control characters");
        }
        return value;
    }

    static Instant instant(String field, JsonNode node) {
        return instant("invalid_memory", field, node);
    }

    static Instant instant(String field, String value) {
        return instant("invalid_memory", field, value);
    }

    /** An optional instant in a JSON body; a 400 with {@code code} naming {@code field} unless a string in range. */
    static Instant instant(String code, String field, JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new ApiException(400, code, instantProblem(field, node.toString()));
        }
        return instant(code, field, node.asText());
    }

    /**
     * An ISO-8601 instant within [{@link #EARLIEST}, {@link #LATEST}]: the index keeps times as epoch
     * milliseconds, and a year such as +1000000000 overflows them, so a write with it would be
     * acknowledged and then never indexed.
     */
    public static Instant instant(String code, String field, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        Instant instant;
        try {
            instant = Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new ApiException(400, code, instantProblem(field, "'" + value + "'"));
        }
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw new ApiException(400, code, instantProblem(field, "'" + value + "'"));
        }
        return instant;
    }

    private static String instantProblem(String field, String got) {
        return "'" + field + "' must be an ISO-8601 instant between " + EARLIEST + " and " + LATEST
                + ", such as 2026-11-30T10:00:00Z (got " + got + ")";
    }

    /** Metadata: an object of string values; null when absent. */
    static Map<String, String> metadata(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            throw invalid("'metadata' must be an object of string values");
        }
        if (node.size() > MAX_METADATA_ENTRIES) {
            throw invalid("'metadata' has more than " + MAX_METADATA_ENTRIES + " entries");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        node.properties().forEach(entry -> {
            metadata.put(metadataKey(entry.getKey()), metadataValue(entry.getKey(), entry.getValue()));
        });
        return metadata;
    }

    private static String metadataKey(String key) {
        if (key.isEmpty() || key.length() > MAX_METADATA_CHARS || key.chars().anyMatch(Character::isISOControl)) {
            throw invalid("metadata keys must be 1.." + MAX_METADATA_CHARS + " characters without control characters");
        }
        return key;
    }

    private static String metadataValue(String key, JsonNode value) {
        if (!value.isTextual()
                || value.asText().length() > MAX_METADATA_CHARS
                || value.asText().chars().anyMatch(Character::isISOControl)) {
            throw invalid("metadata '" + key + "' must be a string of at most " + MAX_METADATA_CHARS
                    + " characters without control characters");
        }
        return value.asText();
    }

    // ---- the listing ----------------------------------------------------------------

    /** Checks a listing's request into the index's query; the tenant is the key's. */
    static MemoryListQuery listQuery(String tenant, MemoryListRequest request) {
        Set<MemoryType> types = new LinkedHashSet<>();
        for (String value : request.type()) {
            for (String t : value.split(",")) {
                try {
                    types.add(type(t));
                } catch (ApiException e) {
                    throw invalid("'type': " + e.getMessage());
                }
            }
        }
        Set<String> targets = new LinkedHashSet<>(request.target());
        Set<String> users = new LinkedHashSet<>(request.user());
        Map<String, String> metadata = request.meta();
        String from = request.from();
        String to = request.to();
        String sort = request.sort() == null ? "created" : request.sort();
        String order = request.order() == null ? "desc" : request.order();
        Integer limit = request.limit();
        String cursor = request.cursor();
        // Each value is a clause of the index query; past Lucene's clause limit a partition fails the
        // listing, which then answered 200 with that partition "missing" instead of saying why.
        for (Map.Entry<String, Integer> filter : Map.of(
                        "meta.*", metadata.size(), "target", targets.size(), "user", users.size())
                .entrySet()) {
            if (filter.getValue() > MAX_FILTER_VALUES) {
                throw invalid("at most " + MAX_FILTER_VALUES + " '" + filter.getKey() + "' filters (got "
                        + filter.getValue() + ")");
            }
        }
        MemoryListQuery.Sort sortKey = switch (sort) {
            case "created" -> MemoryListQuery.Sort.CREATED;
            case "updated" -> MemoryListQuery.Sort.UPDATED;
            case "conversation" -> MemoryListQuery.Sort.CONVERSATION;
            default -> throw invalid("'sort' must be created, updated or conversation (got '" + sort + "')");
        };
        if (!order.equals("asc") && !order.equals("desc")) {
            throw invalid("'order' must be asc or desc (got '" + order + "')");
        }
        int size = limit == null ? MemoryListQuery.DEFAULT_LIMIT : limit;
        if (size < 1 || size > MemoryListQuery.MAX_LIMIT) {
            throw invalid("'limit' must be in [1, " + MemoryListQuery.MAX_LIMIT + "] (got " + size + ")");
        }
        boolean descending = order.equals("desc");
        MemoryListQuery.Position after = cursor == null ? null : decodeCursor(cursor, sortKey, descending);
        try {
            return new MemoryListQuery(
                    tenant,
                    types,
                    targets,
                    users,
                    instant("from", from),
                    instant("to", to),
                    metadata,
                    sortKey,
                    descending,
                    size,
                    after);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /** What a cursor holds: the listing it belongs to and the last memory of the page before. */
    record Cursor(String sort, boolean descending, long value, String id) {}

    static String encodeCursor(MemoryListQuery q, MemoryRecord last) {
        try {
            return Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(Json.MAPPER.writeValueAsBytes(
                            new Cursor(q.sort().name(), q.descending(), q.sort().valueOf(last), last.id())));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MemoryListQuery.Position decodeCursor(String cursor, MemoryListQuery.Sort sort, boolean descending) {
        Cursor c;
        try {
            c = Json.MAPPER.readValue(Base64.getUrlDecoder().decode(cursor), Cursor.class);
        } catch (IOException | IllegalArgumentException e) {
            throw invalid("'cursor' is not a cursor this API returned");
        }
        if (c == null) {
            // Base64 of "null" reads as no cursor object at all.
            throw invalid("'cursor' is not a cursor this API returned");
        }
        if (c.id() == null || !sort.name().equals(c.sort()) || descending != c.descending()) {
            throw invalid("'cursor' belongs to a listing with another sort or order; keep them the same while paging");
        }
        return new MemoryListQuery.Position(c.value(), c.id());
    }
}
