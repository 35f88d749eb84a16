package io.reme.indexstore;

import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import java.util.Objects;
import org.apache.kafka.streams.query.Query;

/**
 * An interactive query for a {@link MemoryIndexStore}: run a search on the partitions asked for.
 * With {@code candidates}, each partition answers every candidate with raw scores
 * ({@code MemoryIndex#candidates}) instead of its own top k, for a caller that merges several
 * partitions and fuses once over all of them.
 */
public record MemorySearch(SearchQuery query, boolean candidates) implements Query<SearchResult> {
    public MemorySearch {
        Objects.requireNonNull(query, "query");
    }

    /** A search answered with each partition's top k. */
    public MemorySearch(SearchQuery query) {
        this(query, false);
    }
}
