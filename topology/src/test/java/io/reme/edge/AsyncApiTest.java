package io.reme.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.reme.diary.DiaryDocument;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.erasure.ErasureMarker;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.search.MemoryRecord;
import io.reme.search.SourceSpan;
import io.reme.session.ArchivedMessage;
import io.reme.topic.Topics;
import io.reme.trace.TraceHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The AsyncAPI description served at {@code /asyncapi.json} says what the topics carry: each channel's address is
 * the topic's name, each payload schema has exactly the fields its record is written with and read from (Jackson's
 * view of the record), the dead letters' headers are those the pipeline writes with every reason it has, and an
 * erasure marker's headers are those the dialog sink checks. CI also validates it with the AsyncAPI parser.
 */
class AsyncApiTest {
    private static final Map<String, Class<?>> RECORDS = Map.of(
            "MemoryRecord", MemoryRecord.class,
            "DiaryDocument", DiaryDocument.class,
            "ArchivedMessage", ArchivedMessage.class,
            "Message", Message.class,
            "SourceSpan", SourceSpan.class,
            "Revision", MemoryRecord.Revision.class,
            "ModelVectors", MemoryRecord.ModelVectors.class);

    private static JsonNode doc;

    @BeforeAll
    static void load() throws IOException {
        doc = Json.MAPPER.readTree(ApiServer.asyncApiDocument());
    }

    @Test
    void everyChannelIsATopicOfThePipeline() {
        Topics topics = Topics.withDefaultPrefix();
        Map<String, String> expected = Map.of(
                "messages", topics.messages(),
                "memories", topics.memories(),
                "diary", topics.diary(),
                "dialog", topics.dialog(),
                "toolResults", topics.toolResults(),
                "deadLetters", topics.dlq());
        Map<String, String> described = new TreeMap<>();
        doc.path("channels")
                .properties()
                .forEach(e ->
                        described.put(e.getKey(), e.getValue().path("address").asText()));
        assertEquals(new TreeMap<>(expected), described);
    }

    @Test
    void everyPayloadSchemaHasTheFieldsItsRecordIsWrittenWithAndReadFrom() {
        RECORDS.forEach((schema, type) -> {
            assertEquals(written(type), described(schema), schema + " as written");
            assertEquals(read(type), described(schema), schema + " as read");
        });
        assertEquals(
                written(ArchivedMessage.Origin.class),
                fieldNames(schema("ArchivedMessage")
                        .path("properties")
                        .path("origin")
                        .path("properties")));
    }

    @Test
    void aBlockIsDescribedWithTheFieldsOfEveryKindAndTheirNames() {
        Set<String> fields = new TreeSet<>(Set.of("type"));
        for (Class<?> kind : Block.class.getPermittedSubclasses()) {
            fields.addAll(names(Json.MAPPER.getSerializationConfig().introspect(Json.MAPPER.constructType(kind))));
        }
        assertEquals(fields, described("Block"));
        Set<String> kinds = Stream.of(
                        new Block.Text("t"),
                        new Block.Thinking("t"),
                        new Block.ToolUse("c", "n", "{}"),
                        new Block.ToolResult("c", "n", "o"),
                        new Block.Image("https://x/y.png", null, null))
                .map(block -> Json.MAPPER.valueToTree(block).path("type").asText())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(
                kinds, values(schema("Block").path("properties").path("type").path("enum")));
    }

    @Test
    void theEnvelopeIsTheOneTheHttpApiDescribes() throws IOException {
        JsonNode openApi = Json.MAPPER.readTree(ApiServer.openApiDocument());
        assertEquals(
                fieldNames(openApi.at("/components/schemas/MessageEnvelope/properties")), described("MessageEnvelope"));
    }

    @Test
    void deadLettersCarryTheHeadersTheDescriptionNamesWithEveryReason() {
        Headers original = new RecordHeaders();
        for (int i = 0; i < 40; i++) {
            // Together over the 16 KiB a dead letter keeps of the original headers: some are dropped, and say so.
            original.add("h" + i, new byte[1024]);
        }
        Headers headers = DeadLetterHeaders.of(original, DlqReason.TOO_LARGE, "too large", "reme.messages", 0, 7, 1L);
        byte[] longKey = "k".repeat(4096).getBytes(StandardCharsets.UTF_8);
        DeadLetters.bound(longKey, new byte[100_000], headers, 1024);
        Set<String> written = Arrays.stream(headers.toArray())
                .map(Header::key)
                .filter(name -> name.startsWith("reme.dlq."))
                .collect(Collectors.toCollection(TreeSet::new));
        JsonNode described = doc.at("/components/messages/DeadLetter/headers");
        assertEquals(written, fieldNames(described.path("properties")));
        assertEquals(
                Arrays.stream(DlqReason.values()).map(Enum::name).collect(Collectors.toCollection(TreeSet::new)),
                values(described.at("/properties/reme.dlq.reason/enum")));
        for (JsonNode required : described.path("required")) {
            assertTrue(headers.lastHeader(required.asText()) != null, required.asText() + " is always written");
        }
    }

    @Test
    void anErasureMarkerCarriesTheHeadersTheDescriptionNames() {
        Headers marker =
                new ErasureMarker("acme", "alice", "e-1", 0, 42, Instant.EPOCH).headers(RequestSecret.random());
        Set<String> written =
                Arrays.stream(marker.toArray()).map(Header::key).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(written, fieldNames(doc.at("/components/messages/ArchivedMessage/headers/properties")));
    }

    @Test
    void aMessagesTraceHeadersAreTheOnesThePipelineCarriesOn() {
        JsonNode described = doc.at("/components/messages/MessageEnvelope/headers/properties");
        assertEquals(Set.of(TraceHeaders.TRACEPARENT, TraceHeaders.TRACESTATE), fieldNames(described));
        assertEquals(
                TraceHeaders.MAX_TRACESTATE,
                described.at("/tracestate/maxLength").asInt());
        Pattern pattern = Pattern.compile(described.at("/traceparent/pattern").asText());
        String carried = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assertTrue(TraceHeaders.valid(carried) && pattern.matcher(carried).matches());
        for (String refused : new String[] {
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", carried + "-x", carried.toUpperCase(Locale.ROOT)
        }) {
            assertTrue(!TraceHeaders.valid(refused) && !pattern.matcher(refused).matches(), refused);
        }
    }

    private static JsonNode schema(String name) {
        JsonNode schema = doc.path("components").path("schemas").path(name);
        assertTrue(schema.isObject(), "asyncapi.json has no schema " + name);
        return schema;
    }

    private static Set<String> described(String name) {
        return fieldNames(schema(name).path("properties"));
    }

    private static Set<String> fieldNames(JsonNode properties) {
        Set<String> names = new TreeSet<>();
        properties.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Set<String> values(JsonNode array) {
        Set<String> values = new TreeSet<>();
        array.forEach(v -> values.add(v.asText()));
        return values;
    }

    /** The fields {@code type} is written with: a record written as another value ({@code @JsonValue}) has that one's. */
    private static Set<String> written(Class<?> type) {
        SerializationConfig config = Json.MAPPER.getSerializationConfig();
        BeanDescription record = config.introspect(Json.MAPPER.constructType(type));
        AnnotatedMember value = record.findJsonValueAccessor();
        return names(value == null ? record : config.introspect(value.getType()));
    }

    /** The fields {@code type} is read from: a record made from another value (a delegating creator) has that one's. */
    private static Set<String> read(Class<?> type) {
        DeserializationConfig config = Json.MAPPER.getDeserializationConfig();
        BeanDescription record = config.introspect(Json.MAPPER.constructType(type));
        return record.getFactoryMethods().stream()
                .filter(m -> m.hasAnnotation(JsonCreator.class)
                        && m.getAnnotation(JsonCreator.class).mode() == JsonCreator.Mode.DELEGATING)
                .findFirst()
                .map(m -> names(config.introspect(m.getParameterType(0))))
                .orElseGet(() -> names(record));
    }

    private static Set<String> names(BeanDescription record) {
        return record.findProperties().stream()
                .map(BeanPropertyDefinition::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
