package io.reme.indexstore;

import io.reme.search.MemoryListQuery;
import io.reme.search.MemoryRecord;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.query.Query;

/** An interactive query for a {@link MemoryIndexStore}: one page of a listing from one partition. */
public record MemoryList(MemoryListQuery query) implements Query<List<MemoryRecord>> {
    public MemoryList {
        Objects.requireNonNull(query, "query");
    }
}
