package io.reme.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which sessions {@code GET /v1/sessions} lists and how many per page.
 *
 * @param user only this user's sessions, or null
 * @param activeSince only sessions active at or after this instant, or null
 * @param limit the page size (1 to 500), or null for the server's (50)
 */
public record SessionFilter(String user, Instant activeSince, Integer limit) {
    /** Every session of the tenant, in pages of the server's size. */
    public static SessionFilter all() {
        return new SessionFilter(null, null, null);
    }

    public SessionFilter withUser(String value) {
        return new SessionFilter(value, activeSince, limit);
    }

    public SessionFilter withActiveSince(Instant value) {
        return new SessionFilter(user, value, limit);
    }

    public SessionFilter withLimit(int value) {
        return new SessionFilter(user, activeSince, value);
    }

    List<Map.Entry<String, String>> query() {
        List<Map.Entry<String, String>> query = new ArrayList<>();
        Queries.put(query, "user", user);
        Queries.put(query, "active_since", activeSince);
        Queries.put(query, "limit", limit);
        return query;
    }
}
