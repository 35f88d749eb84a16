package io.reme.api.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.api.memory.MemoryCreate;
import io.reme.api.memory.MemoryListRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolSchemaTest {
    @Test
    void aToolsSchemaIsItsRecordsMarkedComponentsTyped() {
        ObjectNode search = ToolSchema.of(ToolArguments.Search.class);
        assertEquals("object", search.path("type").asText());
        assertEquals(List.of("query", "user", "types", "k", "from", "to"), names(search.path("properties")));
        assertEquals(List.of("query"), values(search.path("required")));
        JsonNode k = search.path("properties").path("k");
        assertEquals("integer", k.path("type").asText());
        assertEquals(1, k.path("minimum").asInt());
        JsonNode types = search.path("properties").path("types");
        assertEquals("array", types.path("type").asText());
        assertEquals("personal", types.path("items").path("enum").path(0).asText());
        assertEquals(
                "date-time",
                search.path("properties").path("from").path("format").asText());
    }

    @Test
    void namesFollowJacksonAndNestedRecordsDescribeListItems() {
        JsonNode message = ToolSchema.of(ToolArguments.Append.class)
                .path("properties")
                .path("messages")
                .path("items");
        assertEquals(
                List.of("role", "content", "tool_calls", "tool_call_id", "name", "id", "time"),
                names(message.path("properties")));
        assertEquals(List.of("role"), values(message.path("required")));
        JsonNode metadata = ToolSchema.of(MemoryCreate.class).path("properties").path("metadata");
        assertEquals(
                "string", metadata.path("additionalProperties").path("type").asText());
        assertFalse(ToolSchema.of(MemoryListRequest.class).path("properties").has("tenant"));
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> values(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asText()));
        return values;
    }
}
