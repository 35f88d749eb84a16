package io.reme.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.reme.api.tenant.TenantCreate;
import io.reme.tenant.TenantPolicy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one binder of request bodies: what it refuses, with which code, naming which field. */
class BodyBinderTest {
    /** A body with each kind of field, a nested object and a rule of its own. */
    record Sample(String name, Integer count, Double ratio, Boolean flag, List<String> tags, Range range)
            implements RequestBody {
        @Override
        public void validate() {
            if (count != null && count < 0) {
                throw new ApiException(400, "invalid_sample", "'count' must not be negative");
            }
        }
    }

    record Range(String from, String to) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Lenient(String name) {}

    private static Sample bind(String json) {
        return BodyBinder.bind(json.getBytes(StandardCharsets.UTF_8), Sample.class, "invalid_sample");
    }

    private static ApiException refused(String json) {
        return assertThrows(ApiException.class, () -> bind(json));
    }

    @Test
    void aWellFormedBodyBindsAndAnEmptyOneIsAnEmptyObject() {
        Sample sample = bind("{\"name\":\"n\",\"count\":3,\"ratio\":1,\"flag\":true,\"tags\":[\"a\"],"
                + "\"range\":{\"from\":\"x\"}}");
        assertEquals(new Sample("n", 3, 1.0, true, List.of("a"), new Range("x", null)), sample);
        assertEquals(new Sample(null, null, null, null, null, null), bind(""));
        assertNull(BodyBinder.bind(new byte[0], Sample.class, "invalid_sample").name());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"count\":\"5\"}                 | 'count' must be a whole number",
                "{\"count\":2.5}                   | 'count' must be a whole number",
                "{\"count\":true}                  | 'count' must be a whole number",
                "{\"count\":5000000000}            | 'count' is not valid",
                "{\"ratio\":\"high\"}              | 'ratio' must be a number",
                "{\"flag\":\"yes\"}                | 'flag' must be true or false",
                "{\"name\":42}                     | 'name' must be a string",
                "{\"name\":{}}                     | 'name' must be a string",
                "{\"tags\":\"a\"}                  | 'tags' must be an array",
                "{\"tags\":[\"a\",7]}              | 'tags' (item 1) must be a string",
                "{\"range\":{\"from\":1}}          | 'range.from' must be a string",
                "{\"range\":[]}                    | 'range' must be an object",
                "{\"range\":{\"since\":\"x\"}}     | unknown field 'range.since'; accepted: [from, to]",
                "{\"nmae\":\"n\"}                  | unknown field 'nmae'; accepted: [count, flag, name, range, ratio, tags]",
                "[1,2]                             | the body must be a JSON object",
                "42                                | the body must be a JSON object",
                "null                              | the body must be a JSON object",
                "{\"count\":-1}                    | 'count' must not be negative",
            })
    void aBodyThatIsNotTheRecordIs400NamingTheField(String json, String message) {
        ApiException e = refused(json);
        assertEquals(400, e.status());
        assertEquals("invalid_sample", e.code(), e::getMessage);
        assertTrue(e.getMessage().startsWith(message), e::getMessage);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"{\"name\":", "not json", "{\"name\":\"n\"} trailing", "{'name':'n'}"})
    void aBodyThatIsNotJsonIsMalformed(String json) {
        ApiException e = refused(json);
        assertEquals(400, e.status());
        assertEquals("malformed_json", e.code(), e::getMessage);
    }

    /** The API's own records: each route's code, and the rule or binding failure named. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "diary.DiarySave      | {\"expectedVersion\":0}                 | invalid_body          | content must be",
                "diary.DiarySave      | {\"content\":\"x\",\"expectedVersion\":-1} | invalid_body | expectedVersion must be",
                "diary.DiarySave      | {\"content\":\"x\",\"expectedVersion\":1.5} | invalid_body | 'expectedVersion' must be a whole number",
                "tenant.TenantCreate   | {\"tenant\":\"a/b\"}                  | invalid_tenant        | tenant must match",
                "tenant.TenantCreate   | {\"tenant\":\"a\",\"status\":\"off\"} | invalid_status     | status must be",
                "tenant.TenantCreate   | {\"tenant\":\"a\",\"policy\":{}}     | invalid_tenant        | unknown field 'policy'",
                "tenant.KeyRequest     | {\"expiresAt\":\"soon\"}              | invalid_expiry        | expiresAt must be",
                "tenant.KeyRequest     | {\"expiresAt\":5}                       | invalid_expiry        | 'expiresAt' must be a string",
                "erasure.TenantErase    | {\"confirm\":true}                      | confirmation_required | 'confirm' must be a string",
                "memory.MemoryUpdate   | {\"version\":\"2\"}                   | invalid_memory        | 'version' must be a whole number",
                "memory.MemoryCreate   | {\"type\":\"tool\",\"content\":\"x\"} | invalid_memory     | 'target' is required",
                "memory.RetrieveRequest| {\"query\":\"q\",\"timeRange\":{\"since\":1}} | invalid_memory | unknown field 'timeRange.since'",
                "memory.SearchRequest  | {\"query\":\"q\",\"users\":[\"a\",null]} | invalid_query   | 'users' must be a string",
            })
    void theApisRecordsAnswerTheirRoutesCodes(String type, String json, String code, String message) throws Exception {
        Class<?> record = Class.forName("io.reme.api." + type);
        ApiException e = assertThrows(
                ApiException.class,
                () -> BodyBinder.bind(
                        json.getBytes(StandardCharsets.UTF_8),
                        record,
                        code.startsWith("invalid_status") ? TenantCreate.INVALID : code));
        assertEquals(400, e.status());
        assertEquals(code, e.code(), e::getMessage);
        assertTrue(e.getMessage().startsWith(message), e::getMessage);
    }

    @Test
    void aRecordMayIgnoreUnknownFields() {
        assertEquals(
                new Lenient("n"),
                BodyBinder.bind("{\"name\":\"n\",\"other\":1}".getBytes(StandardCharsets.UTF_8), Lenient.class, "x"));
    }

    @Test
    void aConstructorsRuleIsA400WithItsMessage() {
        ApiException e = assertThrows(
                ApiException.class,
                () -> BodyBinder.bind(
                        "{\"llmConcurrency\":0}".getBytes(StandardCharsets.UTF_8),
                        TenantPolicy.class,
                        "invalid_policy"));
        assertEquals("invalid_policy", e.code());
        assertTrue(e.getMessage().contains("llmConcurrency must be at least 1"), e::getMessage);
    }
}
