package io.reme.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The body of {@code POST /v1/search}: a query and, optionally, how many hits and which memories may be hits. Start
 * from {@link #of(String)} and narrow with the {@code with} methods; absent fields are left to the server's
 * defaults.
 *
 * @param query the text searched
 * @param k how many hits (server default 10)
 * @param types only these types ({@code personal}, {@code procedural}, {@code tool}, {@code diary_chunk}, {@code
 *     dialog_chunk})
 * @param users only these users' memories
 * @param sessions only memories from these sessions
 * @param targets only memories about these targets
 * @param from only memories from this time on (inclusive)
 * @param to only memories before this time
 * @param minScore only hits scoring at least this, in [0, 1]
 * @param fusion {@code rank_and_score} (the default), {@code rrf} or {@code weighted}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SearchRequest(
        String query,
        Integer k,
        List<String> types,
        List<String> users,
        List<String> sessions,
        List<String> targets,
        Instant from,
        Instant to,
        Double minScore,
        String fusion) {
    public SearchRequest {
        Objects.requireNonNull(query, "query");
        types = types == null ? null : List.copyOf(types);
        users = users == null ? null : List.copyOf(users);
        sessions = sessions == null ? null : List.copyOf(sessions);
        targets = targets == null ? null : List.copyOf(targets);
    }

    /** A search of this text with the server's defaults. */
    public static SearchRequest of(String query) {
        return new SearchRequest(query, null, null, null, null, null, null, null, null, null);
    }

    public SearchRequest withK(int value) {
        return new SearchRequest(query, value, types, users, sessions, targets, from, to, minScore, fusion);
    }

    public SearchRequest withTypes(String... value) {
        return new SearchRequest(query, k, List.of(value), users, sessions, targets, from, to, minScore, fusion);
    }

    public SearchRequest withUsers(String... value) {
        return new SearchRequest(query, k, types, List.of(value), sessions, targets, from, to, minScore, fusion);
    }

    public SearchRequest withSessions(String... value) {
        return new SearchRequest(query, k, types, users, List.of(value), targets, from, to, minScore, fusion);
    }

    public SearchRequest withTargets(String... value) {
        return new SearchRequest(query, k, types, users, sessions, List.of(value), from, to, minScore, fusion);
    }

    /** Only memories whose time lies in [from, to); either may be null for no bound. */
    public SearchRequest withTimeRange(Instant fromTime, Instant toTime) {
        return new SearchRequest(query, k, types, users, sessions, targets, fromTime, toTime, minScore, fusion);
    }

    public SearchRequest withMinScore(double value) {
        return new SearchRequest(query, k, types, users, sessions, targets, from, to, value, fusion);
    }

    public SearchRequest withFusion(String value) {
        return new SearchRequest(query, k, types, users, sessions, targets, from, to, minScore, value);
    }
}
