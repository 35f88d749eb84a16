package io.reme.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import io.reme.search.Hit;
import io.reme.search.MemoryType;
import io.reme.search.SearchQuery;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code POST /v1/memories/retrieve}: what an agent about to act should know, the most relevant
 * memories of each asked type (personal, procedural, tool by default), each type searched on its
 * own so one kind cannot crowd out the others. Runs the same search as {@code /v1/search} (same
 * fan-out, same tenant wall) once per type.
 */
final class MemoryRetrieval {
    static final int DEFAULT_K = 5;
    static final int MAX_K = 50;
    private static final Set<String> FIELDS = Set.of("query", "types", "targets", "users", "k", "timeRange");

    private final SearchQueries searches;

    MemoryRetrieval(SearchQueries searches) {
        this.searches = searches;
    }

    /** The memories per type (in the order asked), and whether a partition did not answer. */
    record Answer(Map<String, List<Hit>> results, boolean partial, Set<Integer> missingPartitions) {}

    Answer retrieve(String tenant, JsonNode body, String authorization) {
        JsonNode b = MemoryInput.object(body);
        b.fieldNames().forEachRemaining(name -> {
            if (!FIELDS.contains(name)) {
                throw MemoryInput.invalid("unknown field '" + name + "'; accepted: " + new TreeSet<>(FIELDS));
            }
        });
        if (!b.path("query").isTextual() || b.path("query").asText().isBlank()) {
            throw MemoryInput.invalid("'query' is required: what the agent is about to do or asks about");
        }
        Set<MemoryType> types = new LinkedHashSet<>();
        if (b.hasNonNull("types") && !b.get("types").isArray()) {
            throw MemoryInput.invalid("'types' must be an array of personal, procedural and tool");
        }
        for (JsonNode t : b.path("types")) {
            if (!t.isTextual()) {
                throw MemoryInput.invalid("'types' must be an array of personal, procedural and tool (got " + t + ")");
            }
            MemoryType type = MemoryInput.type(t.asText());
            if (!MemoryInput.WRITABLE.contains(type)) {
                throw MemoryInput.invalid("'types' may hold personal, procedural and tool (got '" + t.asText() + "')");
            }
            types.add(type);
        }
        if (types.isEmpty()) {
            types.addAll(List.of(MemoryType.PERSONAL, MemoryType.PROCEDURAL, MemoryType.TOOL));
        }
        int k = b.path("k").asInt(DEFAULT_K);
        if (k < 1 || k > MAX_K || b.has("k") && !b.get("k").isInt()) {
            throw MemoryInput.invalid("'k' must be a whole number in [1, " + MAX_K + "] (memories per type)");
        }
        JsonNode range = b.path("timeRange");
        if (!range.isMissingNode() && !range.isObject()) {
            throw MemoryInput.invalid("'timeRange' must be an object {\"from\": instant, \"to\": instant}");
        }
        ObjectNode search = Json.MAPPER.createObjectNode();
        search.put("query", b.get("query").asText());
        search.put("k", k);
        copy(b, "targets", search);
        copy(b, "users", search);
        if (range.isObject()) {
            MemoryInput.instant("timeRange.from", range.get("from"));
            MemoryInput.instant("timeRange.to", range.get("to"));
            copy(range, "from", search);
            copy(range, "to", search);
        }
        // The question is embedded once; each type is then searched on its own.
        SearchQuery query = searches.parse(tenant, search);
        Map<String, List<Hit>> results = new LinkedHashMap<>();
        Set<Integer> missing = new TreeSet<>();
        for (MemoryType type : types) {
            SearchQueries.Answer answer = searches.search(query.withTypes(Set.of(type)), authorization);
            results.put(type.name().toLowerCase(Locale.ROOT), answer.hits());
            missing.addAll(answer.missingPartitions());
        }
        return new Answer(results, !missing.isEmpty(), missing);
    }

    private static void copy(JsonNode from, String field, ObjectNode to) {
        if (from.hasNonNull(field)) {
            to.set(field, from.get(field));
        }
    }
}
