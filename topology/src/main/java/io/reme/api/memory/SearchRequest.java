package io.reme.api.memory;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.reme.api.ApiException;
import io.reme.api.RequestBody;
import io.reme.search.Retrieval;
import io.reme.search.SearchQuery;
import java.util.List;
import java.util.Objects;

/**
 * The body of {@code POST /v1/search} (and the {@code search_memory} tool's arguments). Unknown fields
 * are ignored, as they always were on this route: clients and the memory workers send it, and an
 * older instance must keep answering a newer one's lookups. {@code types}, {@code users}, {@code
 * sessions} and {@code targets} are each a string or an array of strings (absent: none); {@code from}
 * and {@code to} are ISO-8601 instants, checked against the index's range by {@link SearchQueries};
 * {@code retrieval} names the strategy ({@code client} when absent, {@code lookup} for the workers).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SearchRequest(
        String query,
        Integer k,
        Double minScore,
        String fusion,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> types,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> users,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> sessions,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> targets,

        String from,
        String to,
        String retrieval)
        implements RequestBody {
    public static final String INVALID = "invalid_query";

    @Override
    public void validate() {
        if (query == null || query.isBlank()) {
            throw invalid("'query' is required: a non-empty string");
        }
        if (k != null && (k < 1 || k > SearchQuery.MAX_K)) {
            throw invalid("'k' must be a whole number in [1, " + SearchQuery.MAX_K + "] (got " + k + ")");
        }
        if (minScore != null && !(minScore >= 0 && minScore <= 1)) {
            throw invalid("'minScore' must be a number in [0, 1] (got " + minScore + ")");
        }
        noNulls("types", types);
        noNulls("users", users);
        noNulls("sessions", sessions);
        noNulls("targets", targets);
        strategy();
    }

    /**
     * The retrieval the request names ({@link Retrieval#NAMED}); a client's search ({@link Retrieval#CLIENT}) when
     * it names none. The workers' lookups name {@code lookup}.
     */
    Retrieval strategy() {
        if (retrieval == null) {
            return Retrieval.CLIENT;
        }
        try {
            return Retrieval.named(retrieval);
        } catch (IllegalArgumentException e) {
            throw invalid("'retrieval' must be " + Retrieval.names() + " (got '" + retrieval + "')");
        }
    }

    /** The same request for another text: one question of a query that asks several. */
    SearchRequest withQuery(String text) {
        return new SearchRequest(text, k, minScore, fusion, types, users, sessions, targets, from, to, retrieval);
    }

    private static void noNulls(String field, List<String> values) {
        // Not contains(null): an immutable list (List.of, as the MCP tools build) throws on it.
        if (values != null && values.stream().anyMatch(Objects::isNull)) {
            throw invalid("'" + field + "' must be a string or an array of strings (got null in it)");
        }
    }

    private static ApiException invalid(String message) {
        return new ApiException(400, INVALID, message);
    }
}
