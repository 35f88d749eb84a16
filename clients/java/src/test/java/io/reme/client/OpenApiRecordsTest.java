package io.reme.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The client's records against the server's OpenAPI description (which {@code OpenApiSchemaTest} holds to the
 * server's own records): every field the client reads or writes is one the API has, and an answer the client models
 * leaves out only the fields listed here, on purpose.
 */
class OpenApiRecordsTest {
    private static final Path OPENAPI = Path.of("../../topology/src/main/resources/openapi.json");

    /** The client's records named as the description's schemas are. */
    private static final List<Class<? extends Record>> RECORDS = List.of(
            SessionContext.class,
            OpenAiContext.class,
            AnthropicContext.class,
            DiaryDocument.class,
            SearchRequest.class,
            Hit.class,
            SearchAnswer.class,
            MessageEnvelope.class,
            IngestAnswer.class,
            Memory.class,
            MemoryWritten.class,
            SessionEntry.class,
            ErasureStatus.class,
            SourceSpan.class);

    /** Fields the client does not model, by schema, each for a reason. */
    private static final Map<String, Set<String>> LEFT_OUT =
            // The server's memory workers' own way of looking up similar memories, not a client's.
            Map.of("SearchRequest", Set.of("retrieval"));

    @Test
    void everyFieldOfTheClientsRecordsIsInTheApiAndNoneIsMissedUnsaid() throws IOException {
        JsonNode schemas = new ObjectMapper()
                .readTree(Files.readString(OPENAPI))
                .path("components")
                .path("schemas");
        List<String> problems = new ArrayList<>();
        for (Class<? extends Record> type : RECORDS) {
            JsonNode schema = schemas.path(type.getSimpleName());
            assertTrue(schema.isObject(), "no schema " + type.getSimpleName() + " in the OpenAPI description");
            Set<String> api = new TreeSet<>();
            schema.path("properties").fieldNames().forEachRemaining(api::add);
            Set<String> client = new TreeSet<>();
            for (RecordComponent component : type.getRecordComponents()) {
                JsonProperty renamed = component.getAccessor().getAnnotation(JsonProperty.class);
                JsonProperty onField = field(type, component);
                String name =
                        renamed != null ? renamed.value() : onField != null ? onField.value() : component.getName();
                client.add(name);
            }
            Set<String> unknown = new TreeSet<>(client);
            unknown.removeAll(api);
            if (!unknown.isEmpty()) {
                problems.add(type.getSimpleName() + " has fields the API does not: " + unknown);
            }
            Set<String> missed = new TreeSet<>(api);
            missed.removeAll(client);
            missed.removeAll(LEFT_OUT.getOrDefault(type.getSimpleName(), Set.of()));
            if (!missed.isEmpty()) {
                problems.add(type.getSimpleName() + " misses the API's fields " + missed);
            }
        }
        assertEquals(List.of(), problems);
    }

    private static JsonProperty field(Class<?> type, RecordComponent component) {
        try {
            return type.getDeclaredField(component.getName()).getAnnotation(JsonProperty.class);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }
}
