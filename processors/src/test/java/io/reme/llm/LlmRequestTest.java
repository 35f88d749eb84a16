package io.reme.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class LlmRequestTest {
    private static final Instant T0 = Instant.parse("2026-12-02T09:00:00Z");

    private static LlmRequest diary() {
        Message message =
                new Message("t1", "s1", "u1", "m-1", Role.USER, null, T0, List.of(new Block.Text("remember the blue")));
        return new LlmRequest(
                "r-1",
                2,
                LlmKind.DIARY,
                List.of(),
                new LlmRequest.Dialog("t1", "s1", "u1", 0, 4, 4, List.of(message), "en"),
                LlmRequest.Compaction.NONE,
                0,
                T0);
    }

    @Test
    void aRecordAsksForItsOwnKindAndThenTheOthers() {
        LlmRequest both = diary().asking(List.of(LlmKind.DIARY, LlmKind.EXTRACT));
        assertEquals(List.of(LlmKind.DIARY, LlmKind.EXTRACT), both.kinds());
        assertEquals(List.of(LlmKind.DIARY), diary().kinds());
        assertEquals(
                diary().withKind(LlmKind.EXTRACT),
                both.withKind(LlmKind.EXTRACT),
                "each kind alone is the request as if it had come on its own");
        assertEquals(diary(), both.withKind(LlmKind.DIARY));
        assertEquals(
                List.of(LlmKind.EXTRACT),
                diary().asking(List.of(LlmKind.EXTRACT)).kinds());
    }

    @Test
    void theJsonIsFlatFieldForField() throws Exception {
        Message message =
                new Message("t1", "s1", "u1", "m-9", Role.USER, null, T0, List.of(new Block.Text("keep the port")));
        LlmRequest compact = new LlmRequest(
                "r-7",
                3,
                LlmKind.COMPACT,
                List.of(),
                new LlmRequest.Dialog("t1", "s1", "u1", 5, 9, 9, List.of(message), "zh"),
                new LlmRequest.Compaction("## Goal\nship", 640, List.of("call-1")),
                2,
                T0);
        String json = "{\"requestId\":\"r-7\",\"epoch\":3,\"kind\":\"COMPACT\",\"tenant\":\"t1\",\"session\":\"s1\","
                + "\"user\":\"u1\",\"fromSeq\":9,\"toSeq\":9,\"messages\":["
                + new String(Json.bytes(message), StandardCharsets.UTF_8)
                + "],\"previousSummary\":\"## Goal\\nship\",\"language\":\"zh\",\"attempt\":2,"
                + "\"createdAt\":\"2026-12-02T09:00:00Z\",\"summaryBudget\":640,\"unansweredCalls\":[\"call-1\"],"
                + "\"also\":[],\"incarnation\":5}";
        assertEquals(json, new String(Json.bytes(compact), StandardCharsets.UTF_8));
        assertEquals(compact, Json.MAPPER.readValue(json, LlmRequest.class));
    }

    @Test
    void theOtherKindsTravelInTheJson() throws Exception {
        LlmRequest both = diary().asking(List.of(LlmKind.DIARY, LlmKind.EXTRACT));
        assertEquals(both, Json.MAPPER.readValue(Json.bytes(both), LlmRequest.class));
        String older = new String(Json.bytes(diary()), StandardCharsets.UTF_8).replace(",\"also\":[]", "");
        assertEquals(
                diary(), Json.MAPPER.readValue(older, LlmRequest.class), "a record written before 'also' asks for one");
    }

    @Test
    void theOtherKindsAreDistinctAndNeverASummary() {
        assertThrows(IllegalArgumentException.class, () -> diary().asking(List.of(LlmKind.DIARY, LlmKind.DIARY)));
        assertThrows(
                IllegalArgumentException.class,
                () -> diary().asking(List.of(LlmKind.DIARY, LlmKind.EXTRACT, LlmKind.EXTRACT)));
        assertThrows(IllegalArgumentException.class, () -> diary().asking(List.of(LlmKind.DIARY, LlmKind.COMPACT)));
        // Produced straight to Kafka: unreadable, which a worker dead-letters instead of running.
        String forged = new String(Json.bytes(diary()), StandardCharsets.UTF_8)
                .replace("\"also\":[]", "\"also\":[\"EXTRACT\",\"EXTRACT\",\"COMPACT\"]");
        assertThrows(Exception.class, () -> Json.MAPPER.readValue(forged, LlmRequest.class));
        String unknown = forged.replace("[\"EXTRACT\",\"EXTRACT\",\"COMPACT\"]", "[\"DELETE_ALL\"]");
        assertThrows(Exception.class, () -> Json.MAPPER.readValue(unknown, LlmRequest.class));
    }
}
