package io.reme.api.memory;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.reme.api.RequestBody;
import io.reme.search.MemoryType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The body of {@code POST /v1/memories/retrieve}: the question, which memory types to answer (all
 * three writable ones by default), how many per type, and the search's filters. {@code targets} and
 * {@code users} are a string or an array of strings, as on {@code /v1/search}.
 */
public record RetrieveRequest(
        String query,
        List<String> types,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> targets,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> users,

        Integer k,
        TimeRange timeRange)
        implements RequestBody {
    static final int DEFAULT_K = 5;
    static final int MAX_K = 50;

    /** {@code {"from": instant, "to": instant}}, either may be left out. */
    record TimeRange(String from, String to) {}

    @Override
    public void validate() {
        if (query == null || query.isBlank()) {
            throw MemoryInput.invalid("'query' is required: what the agent is about to do or asks about");
        }
        memoryTypes();
        if (k != null && (k < 1 || k > MAX_K)) {
            throw MemoryInput.invalid("'k' must be a whole number in [1, " + MAX_K + "] (memories per type)");
        }
        if (timeRange != null) {
            MemoryInput.instant("timeRange.from", timeRange.from());
            MemoryInput.instant("timeRange.to", timeRange.to());
        }
    }

    /** The types asked for, in order; personal, procedural and tool when none is. */
    Set<MemoryType> memoryTypes() {
        Set<MemoryType> wanted = new LinkedHashSet<>();
        for (String t : types == null ? List.<String>of() : types) {
            if (t == null) {
                throw MemoryInput.invalid("'types' must be an array of personal, procedural and tool (got null)");
            }
            MemoryType type = MemoryInput.type(t);
            if (!MemoryInput.WRITABLE.contains(type)) {
                throw MemoryInput.invalid("'types' may hold personal, procedural and tool (got '" + t + "')");
            }
            wanted.add(type);
        }
        if (wanted.isEmpty()) {
            wanted.addAll(List.of(MemoryType.PERSONAL, MemoryType.PROCEDURAL, MemoryType.TOOL));
        }
        return wanted;
    }

    /** The search each type runs, before its type filter. */
    SearchRequest search() {
        return new SearchRequest(
                query,
                k == null ? DEFAULT_K : k,
                null,
                null,
                null,
                users,
                null,
                targets,
                timeRange == null ? null : timeRange.from(),
                timeRange == null ? null : timeRange.to(),
                null);
    }
}
