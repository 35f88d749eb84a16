package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Hit}: the memory it holds and its JSON, which stays flat as answers and candidates have it. */
class HitTest {
    private static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");

    private static MemoryRecord memory() {
        return new MemoryRecord(
                "m1",
                new MemoryRecord.Owner("acme", "alice", "s1"),
                MemoryType.PERSONAL,
                "Alice prefers trains",
                new MemoryRecord.Times(T0, T0.plusSeconds(5), T0.minusSeconds(60)),
                Map.of("k", "v"),
                "alice",
                new MemoryRecord.Versions(
                        2, List.of(new MemoryRecord.Revision("Alice likes trains", 1, T0.plusSeconds(5)))),
                "the turn before",
                new MemoryRecord.Vectors("model-a", new float[] {1, 0}, new float[] {0, 1}, List.of()),
                List.of(new SourceSpan("s1", "m4", "m9", 6, T0.minusSeconds(90), T0.minusSeconds(60))));
    }

    @Test
    void aHitHoldsItsMemoryWithoutVectors() {
        Hit hit = new Hit(memory(), new Hit.Scores(0.9, 3.5, 0.8, null, 0.7));
        assertNull(hit.memory().vector());
        assertNull(hit.memory().contextVector());
        assertEquals("model-a", hit.memory().vectorModel());
        assertEquals(memory().withVector(null, "model-a"), hit.memory());
        assertEquals("m1", hit.id());
        assertEquals(0.9, hit.score());
    }

    @Test
    void itsJsonIsFlatAndReadsBack() throws Exception {
        Hit hit = new Hit(memory(), new Hit.Scores(0.9, 3.5, 0.8, null, 0.7));
        JsonNode json = Json.MAPPER.valueToTree(hit);
        assertEquals(
                List.of(
                        "id",
                        "type",
                        "text",
                        "score",
                        "textScore",
                        "vectorScore",
                        "tenant",
                        "user",
                        "session",
                        "createdAt",
                        "updatedAt",
                        "conversationTime",
                        "metadata",
                        "vectorModel",
                        "target",
                        "version",
                        "history",
                        "context",
                        "contextVectorScore",
                        "sources"),
                names(json.fieldNames()));
        assertEquals("Alice prefers trains", json.get("text").asText());
        assertEquals(3.5, json.get("textScore").asDouble());
        assertEquals(hit, Json.MAPPER.treeToValue(json, Hit.class));
        assertEquals(hit, Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(hit), Hit.class));
    }

    private static List<String> names(Iterator<String> names) {
        List<String> out = new ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }
}
