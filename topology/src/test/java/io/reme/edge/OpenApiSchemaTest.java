package io.reme.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.reme.json.Json;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI description's schemas say what the code sends and reads: each schema of an answer has exactly the
 * properties its record is written with, each schema of a request exactly those its record is read from (Jackson's
 * own view of the record, so a renamed, added or ignored field is seen). A field added to a record without its
 * description, or described but gone, fails here.
 */
class OpenApiSchemaTest {
    /** Schemas of answers and the records they are written from. */
    private static final Map<String, String> ANSWERS = Map.ofEntries(
            Map.entry("Readiness", "io.reme.edge.Health$Status"),
            Map.entry("SessionContext", "io.reme.session.SessionView"),
            Map.entry("DiaryDocument", "io.reme.api.diary.DiaryView"),
            Map.entry("Hit", "io.reme.search.Hit$Wire"),
            Map.entry("SearchAnswer", "io.reme.api.memory.SearchQueries$Answer"),
            Map.entry("Memory", "io.reme.api.memory.MemoryView"),
            Map.entry("MemoryWritten", "io.reme.api.memory.MemoryQueries$Written"),
            Map.entry("SessionEntry", "io.reme.api.session.SessionListing$Entry"),
            Map.entry("SessionListing", "io.reme.api.session.SessionListing$Listing"),
            Map.entry("ErasureStatus", "io.reme.api.erasure.UserErasure$Status"),
            Map.entry("TenantPolicy", "io.reme.tenant.TenantPolicy"),
            Map.entry("SourceSpan", "io.reme.search.SourceSpan"));

    /** Schemas of requests and the records they are read into. */
    private static final Map<String, String> REQUESTS =
            Map.of("SearchRequest", "io.reme.api.memory.SearchRequest", "TenantPolicy", "io.reme.tenant.TenantPolicy");

    private static JsonNode schemas;

    @BeforeAll
    static void load() throws IOException {
        schemas = Json.MAPPER
                .readTree(ApiServer.openApiDocument())
                .path("components")
                .path("schemas");
    }

    @Test
    void everyAnswerSchemaHasTheFieldsItsRecordIsWrittenWith() throws ClassNotFoundException {
        assertDescribed(ANSWERS, Json.MAPPER.getSerializationConfig()::introspect);
    }

    @Test
    void everyRequestSchemaHasTheFieldsItsRecordIsReadFrom() throws ClassNotFoundException {
        assertDescribed(REQUESTS, Json.MAPPER.getDeserializationConfig()::introspect);
    }

    /** Each schema of {@code records} against its record as {@code introspect} sees it. */
    private static void assertDescribed(Map<String, String> records, Function<JavaType, BeanDescription> introspect)
            throws ClassNotFoundException {
        for (Map.Entry<String, String> entry : records.entrySet()) {
            BeanDescription record = introspect.apply(Json.MAPPER.constructType(Class.forName(entry.getValue())));
            assertEquals(names(record), described(entry.getKey()), entry.getKey() + " against " + entry.getValue());
        }
    }

    private static Set<String> names(BeanDescription record) {
        return record.findProperties().stream()
                .filter(p -> p.couldSerialize() || p.couldDeserialize())
                .map(BeanPropertyDefinition::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> described(String schema) {
        JsonNode properties = schemas.path(schema).path("properties");
        assertTrue(properties.isObject(), "openapi.json has no schema " + schema + " with properties");
        Set<String> names = new TreeSet<>();
        properties.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
