package io.reme.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Query strings and path segments, encoded once for every route. */
final class Queries {
    private Queries() {}

    static void put(List<Map.Entry<String, String>> query, String name, Object value) {
        if (value != null) {
            query.add(Map.entry(name, value.toString()));
        }
    }

    static String encode(List<Map.Entry<String, String>> query) {
        if (query.isEmpty()) {
            return "";
        }
        return query.stream()
                .map(e -> component(e.getKey()) + "=" + component(e.getValue()))
                .collect(Collectors.joining("&", "?", ""));
    }

    /** One path segment: every reserved character escaped, so an id cannot reach another route. */
    static String segment(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("a path segment must not be empty");
        }
        return component(value);
    }

    private static String component(String value) {
        // URLEncoder writes form encoding: a space is "+", which a path or query reader takes literally.
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
