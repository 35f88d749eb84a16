package io.reme.search;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.reme.message.SafeId;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A listing of one tenant's memories: exact filters, one sort key and order, a page size and the
 * position after which the page starts. The tenant is required: no listing runs without it.
 *
 * <ul>
 *   <li>{@code types}, {@code targets}, {@code users}: exact filters, empty means any.</li>
 *   <li>{@code from} (inclusive) and {@code to} (exclusive) bound the sort key's time.</li>
 *   <li>{@code metadata}: every entry must be present with exactly that value.</li>
 *   <li>{@code after}: the sort value and id of the last memory of the previous page; the page
 *       holds what comes strictly after it in this order. Ids break ties, so paging never skips or
 *       repeats a memory that did not change in between.</li>
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MemoryListQuery(
        String tenant,
        Set<MemoryType> types,
        Set<String> targets,
        Set<String> users,
        Instant from,
        Instant to,
        Map<String, String> metadata,
        Sort sort,
        boolean descending,
        int limit,
        Position after) {

    public static final int DEFAULT_LIMIT = 20;
    public static final int MAX_LIMIT = 500;

    /** The time a listing is ordered by. */
    public enum Sort {
        /** When the memory was first written. */
        CREATED,
        /** When the memory was last written. */
        UPDATED,
        /** When the remembered thing was said; the creation time when that is not known. */
        CONVERSATION;

        /** This sort's value of a record, epoch millis (0 for a record without that time). */
        public long valueOf(MemoryRecord r) {
            Instant t = switch (this) {
                case CREATED -> r.createdAt();
                case UPDATED -> r.updatedAt() != null ? r.updatedAt() : r.createdAt();
                case CONVERSATION -> r.effectiveTime();
            };
            return t == null ? 0 : t.toEpochMilli();
        }
    }

    /** A place in a listing: the sort value and id of a memory. */
    public record Position(long value, String id) {
        public Position {
            Objects.requireNonNull(id, "id");
        }
    }

    public MemoryListQuery {
        SafeId.require("tenant", tenant);
        types = types == null ? Set.of() : Set.copyOf(types);
        targets = targets == null ? Set.of() : Set.copyOf(new TreeSet<>(targets));
        users = users == null ? Set.of() : Set.copyOf(new TreeSet<>(users));
        metadata = metadata == null ? Map.of() : Map.copyOf(new TreeMap<>(metadata));
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("from must be before to");
        }
        sort = sort == null ? Sort.CREATED : sort;
        if (limit == 0) {
            limit = DEFAULT_LIMIT;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be in [1, " + MAX_LIMIT + "] (got " + limit + ")");
        }
    }

    public MemoryListQuery withAfter(Position newAfter) {
        return new MemoryListQuery(
                tenant, types, targets, users, from, to, metadata, sort, descending, limit, newAfter);
    }
}
