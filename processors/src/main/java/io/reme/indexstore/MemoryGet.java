package io.reme.indexstore;

import io.reme.search.MemoryRecord;
import java.util.Optional;
import org.apache.kafka.streams.query.Query;

/** An interactive query for a {@link MemoryIndexStore}: the tenant's memory with this id, if indexed. */
public record MemoryGet(String tenant, String id) implements Query<Optional<MemoryRecord>> {}
