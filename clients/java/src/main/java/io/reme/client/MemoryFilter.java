package io.reme.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which memories {@code GET /v1/memories} lists, in which order and how many per page. {@link #all()} then the
 * {@code with} methods; the cursor is the client's business ({@link RemeClient#listMemories}, {@link
 * RemeClient#memories}).
 *
 * @param types only these types (empty: all)
 * @param targets only memories about these targets
 * @param users only these users' memories
 * @param from the sort's time from (inclusive), or null
 * @param to the sort's time to (exclusive), or null
 * @param sort {@code created}, {@code updated} or {@code conversation}, or null for the server's
 * @param order {@code asc} or {@code desc}, or null for the server's
 * @param limit the page size, or null for the server's
 */
public record MemoryFilter(
        List<String> types,
        List<String> targets,
        List<String> users,
        Instant from,
        Instant to,
        String sort,
        String order,
        Integer limit) {
    public MemoryFilter {
        types = types == null ? List.of() : List.copyOf(types);
        targets = targets == null ? List.of() : List.copyOf(targets);
        users = users == null ? List.of() : List.copyOf(users);
    }

    /** Every memory of the tenant, in the server's order and page size. */
    public static MemoryFilter all() {
        return new MemoryFilter(null, null, null, null, null, null, null, null);
    }

    public MemoryFilter withTypes(String... value) {
        return new MemoryFilter(List.of(value), targets, users, from, to, sort, order, limit);
    }

    public MemoryFilter withTargets(String... value) {
        return new MemoryFilter(types, List.of(value), users, from, to, sort, order, limit);
    }

    public MemoryFilter withUsers(String... value) {
        return new MemoryFilter(types, targets, List.of(value), from, to, sort, order, limit);
    }

    public MemoryFilter withTimeRange(Instant fromTime, Instant toTime) {
        return new MemoryFilter(types, targets, users, fromTime, toTime, sort, order, limit);
    }

    /** Sorted by {@code created}, {@code updated} or {@code conversation} time, {@code asc} or {@code desc}. */
    public MemoryFilter withSort(String key, String direction) {
        return new MemoryFilter(types, targets, users, from, to, key, direction, limit);
    }

    public MemoryFilter withLimit(int value) {
        return new MemoryFilter(types, targets, users, from, to, sort, order, value);
    }

    /** The query parameters, each repeated name once per value. */
    List<Map.Entry<String, String>> query() {
        List<Map.Entry<String, String>> query = new ArrayList<>();
        types.forEach(t -> query.add(Map.entry("type", t)));
        targets.forEach(t -> query.add(Map.entry("target", t)));
        users.forEach(u -> query.add(Map.entry("user", u)));
        Queries.put(query, "from", from);
        Queries.put(query, "to", to);
        Queries.put(query, "sort", sort);
        Queries.put(query, "order", order);
        Queries.put(query, "limit", limit);
        return query;
    }
}
