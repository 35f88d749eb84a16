package io.reme.api.cluster;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.BodyBinder;

/** What the internal routes ({@code /v1/internal/*}) read from a call's body. */
public final class InstanceCalls {
    private InstanceCalls() {}

    /**
     * The call's {@code query} object.
     *
     * @throws ApiException 400 {@code invalid_query} when the body has none
     */
    public static JsonNode query(JsonNode body) {
        JsonNode query = body == null ? null : body.get("query");
        if (query == null || !query.isObject()) {
            throw new ApiException(400, "invalid_query", "'query' is required: an object");
        }
        return query;
    }

    /**
     * What is wrong with a call's query in the API's words: the query type's own rule (its message), or where the
     * JSON does not fit it ({@link BodyBinder#problem}); never the JSON library's message, which names classes.
     */
    public static String problem(Exception e) {
        if (e instanceof JsonMappingException mapping) {
            return BodyBinder.problem(mapping);
        }
        if (e instanceof IllegalArgumentException) {
            return String.valueOf(e.getMessage());
        }
        return "'query' is not valid JSON";
    }
}
