package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.BodyBinder;
import io.reme.api.Caller;
import io.reme.search.Hit;
import io.reme.search.MemoryType;
import io.reme.search.Retrieval;
import io.reme.search.SearchQuery;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code POST /v1/memories/retrieve}: what an agent about to act should know, the most relevant
 * memories of each asked type (personal, procedural, tool by default), each type searched on its
 * own so one kind cannot crowd out the others. Runs the same search as {@code /v1/search} (the same
 * {@link Retrieval#CLIENT}, fan-out and tenant wall) once per type.
 */
public final class MemoryRetrieval {

    private final SearchQueries searches;

    public MemoryRetrieval(SearchQueries searches) {
        this.searches = searches;
    }

    /** The memories per type (in the order asked), and whether a partition did not answer. */
    record Answer(Map<String, List<Hit>> results, boolean partial, Set<Integer> missingPartitions) {}

    /** A tool's arguments, bound as the route's body is. */
    Answer retrieve(Caller caller, JsonNode body) {
        return retrieve(caller, BodyBinder.bind(body, RetrieveRequest.class, MemoryCreate.INVALID));
    }

    public Answer retrieve(Caller caller, RetrieveRequest body) {
        String tenant = caller.tenant();
        Set<MemoryType> types = body.memoryTypes();
        SearchRequest search = body.search();
        // The search's own rules (user and target lists) hold here too.
        search.validate();
        // The question (and each it asks) is embedded once; each type is then searched on its own.
        long start = System.nanoTime();
        List<SearchQuery> queries = searches.parse(Retrieval.CLIENT, tenant, search);
        long embedded = System.nanoTime();
        Map<String, List<Hit>> results = new LinkedHashMap<>();
        Set<Integer> missing = new TreeSet<>();
        for (MemoryType type : types) {
            List<SearchQuery> ofType =
                    queries.stream().map(q -> q.withTypes(Set.of(type))).toList();
            SearchQueries.Answer answer = searches.search(Retrieval.CLIENT, ofType, caller, start, embedded);
            results.put(type.name().toLowerCase(Locale.ROOT), answer.hits());
            missing.addAll(answer.missingPartitions());
        }
        return new Answer(results, !missing.isEmpty(), missing);
    }
}
