package io.reme.index;

import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import java.util.Objects;
import org.apache.kafka.streams.query.Query;

/** An interactive query for a {@link MemoryIndexStore}: run a search on the partitions asked for. */
public record MemorySearch(SearchQuery query) implements Query<SearchResult> {
    public MemorySearch {
        Objects.requireNonNull(query, "query");
    }
}
