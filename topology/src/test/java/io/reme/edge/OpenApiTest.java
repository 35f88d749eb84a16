package io.reme.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI description served at {@code /openapi.json} describes exactly the server's route table:
 * every route, nothing more, with the path parameters each template has. A route added to
 * {@link ApiServer} without its description (or the reverse) fails here.
 */
class OpenApiTest {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    private static final Pattern TEMPLATE_PARAM = Pattern.compile("\\{([^/}]+)}");
    private static JsonNode doc;

    @BeforeAll
    static void load() throws IOException {
        doc = Json.MAPPER.readTree(ApiServer.openApiDocument());
    }

    private static Map<String, JsonNode> operations() {
        Map<String, JsonNode> operations = new TreeMap<>();
        for (Map.Entry<String, JsonNode> path : doc.path("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                if (METHODS.contains(op.getKey())) {
                    operations.put(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey(), op.getValue());
                }
            }
        }
        return operations;
    }

    @Test
    void everyRouteIsDescribedAndNothingMore() {
        Set<String> routes = new TreeSet<>(ApiServer.routes());
        Set<String> described = operations().keySet();
        Set<String> undescribed = new TreeSet<>(routes);
        undescribed.removeAll(described);
        Set<String> extra = new TreeSet<>(described);
        extra.removeAll(routes);
        assertTrue(undescribed.isEmpty(), "routes missing from openapi.json: " + undescribed);
        assertTrue(extra.isEmpty(), "openapi.json describes routes the server does not have: " + extra);
        assertEquals(ApiServer.routes().size(), routes.size(), "the route table has a duplicate");
    }

    @Test
    void pathParametersAreExactlyTheTemplatesSegments() {
        operations().forEach((route, operation) -> {
            String path = route.substring(route.indexOf(' ') + 1);
            Set<String> inTemplate = new LinkedHashSet<>();
            Matcher matcher = TEMPLATE_PARAM.matcher(path);
            while (matcher.find()) {
                inTemplate.add(matcher.group(1));
            }
            Set<String> declared = new LinkedHashSet<>();
            for (JsonNode parameter : operation.path("parameters")) {
                if ("path".equals(parameter.path("in").asText())) {
                    declared.add(parameter.path("name").asText());
                    assertTrue(parameter.path("required").asBoolean(), route + ": path parameters are required");
                }
            }
            assertEquals(inTemplate, declared, route + ": declared path parameters");
        });
    }

    @Test
    void everyOperationHasAUniqueIdAndResponses() {
        List<String> ids = new ArrayList<>();
        operations().forEach((route, operation) -> {
            assertFalse(operation.path("operationId").asText().isEmpty(), route + " has no operationId");
            ids.add(operation.path("operationId").asText());
            assertTrue(operation.path("responses").size() > 0, route + " has no responses");
        });
        assertEquals(ids.size(), new LinkedHashSet<>(ids).size(), "operationIds repeat: " + ids);
    }

    @Test
    void everyReferenceResolves() {
        List<String> broken = new ArrayList<>();
        collectBrokenRefs(doc, broken);
        assertTrue(broken.isEmpty(), "unresolved $ref: " + broken);
    }

    private static void collectBrokenRefs(JsonNode node, List<String> broken) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && doc.at(ref.asText().substring(1)).isMissingNode()) {
                broken.add(ref.asText());
            }
        }
        node.forEach(child -> collectBrokenRefs(child, broken));
    }
}
