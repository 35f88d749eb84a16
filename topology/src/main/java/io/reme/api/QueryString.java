package io.reme.api;

import java.util.List;
import java.util.Set;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.UrlEncoded;

/**
 * A request's query parameters as Jetty decodes them (UTF-8, {@code +} as a space, a name without
 * {@code =} as an empty value), in the order they came; what a route's query record binds from.
 * Immutable once parsed.
 */
public final class QueryString {
    private final String raw;
    private final Fields fields;

    private QueryString(String raw, Fields fields) {
        this.raw = raw;
        this.fields = fields;
    }

    /**
     * @param raw the query as sent (after {@code ?}); null or empty for none
     * @param code the route's error code for a query that is not valid URL encoding
     * @throws ApiException 400 with {@code code} when the query is not valid URL encoding
     */
    public static QueryString parse(String raw, String code) {
        Fields fields = new Fields(true);
        if (raw != null && !raw.isEmpty()) {
            try {
                UrlEncoded.decodeUtf8To(raw, fields);
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, code, "the query string is not valid URL encoding");
            }
        }
        return new QueryString(raw == null ? "" : raw, fields.asImmutable());
    }

    public static QueryString empty() {
        return parse(null, "invalid_query");
    }

    /** The query as sent, for messages that quote it. */
    public String raw() {
        return raw;
    }

    /** The parameter names, in the order they first came. */
    public Set<String> names() {
        return fields.getNames();
    }

    /** Every value of {@code name}, in order; empty when absent. */
    public List<String> values(String name) {
        List<String> values = fields.getValues(name);
        return values == null ? List.of() : List.copyOf(values);
    }

    /** The last value of {@code name} (a repeated parameter's last one wins); null when absent. */
    public String last(String name) {
        List<String> values = values(name);
        return values.isEmpty() ? null : values.get(values.size() - 1);
    }
}
