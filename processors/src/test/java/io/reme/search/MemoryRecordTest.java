package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The context of a {@link MemoryRecord}: kept on the topic, checked, dropped with what it belonged to. */
class MemoryRecordTest {
    private static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");

    private static MemoryRecord withContext() {
        return MemoryRecord.of("m1", "acme", "alice", "s1", MemoryType.PERSONAL, "likes tea", T0)
                .withContext("bob: what does alice drink?")
                .withVector(new float[] {1, 0}, "model")
                .withContextVector(new float[] {0, 1});
    }

    /**
     * The topic's format, field for field and in order: records written by any version are read by any
     * other, so the Java shape of the record may change but this may not.
     */
    @Test
    void everyFieldKeepsItsNameAndPlaceOnTheTopic() throws IOException {
        MemoryRecord record = MemoryRecord.of("m1", "acme", "alice", "s1", MemoryType.PERSONAL, "likes tea", T0)
                .withConversationTime(T0.minusSeconds(60))
                .withTarget("alice")
                .revise("likes green tea", Map.of("path", "memory/2024-03-01.md"), T0.plusSeconds(5))
                .withContext("bob: what does alice drink?")
                .withVector(new float[] {1, 0}, "model")
                .withContextVector(new float[] {0, 1})
                .withMoreVectors(new MemoryRecord.ModelVectors("next", new float[] {0, 1, 0}, null))
                .withSources(List.of(new SourceSpan("s1", "m1", "m9", 9, T0.minusSeconds(90), T0.minusSeconds(60))));
        String json = Json.MAPPER.writeValueAsString(record);
        assertEquals(
                "{\"id\":\"m1\""
                        + ",\"tenant\":\"acme\""
                        + ",\"user\":\"alice\""
                        + ",\"session\":\"s1\""
                        + ",\"type\":\"PERSONAL\""
                        + ",\"text\":\"likes green tea\""
                        + ",\"createdAt\":\"2024-03-01T10:00:00Z\""
                        + ",\"updatedAt\":\"2024-03-01T10:00:05Z\""
                        + ",\"conversationTime\":\"2024-03-01T09:59:00Z\""
                        + ",\"metadata\":{\"path\":\"memory/2024-03-01.md\"}"
                        + ",\"vector\":[1.0,0.0]"
                        + ",\"vectorModel\":\"model\""
                        + ",\"target\":\"alice\""
                        + ",\"version\":2"
                        + ",\"history\":[{\"text\":\"likes tea\""
                        + ",\"version\":1"
                        + ",\"replacedAt\":\"2024-03-01T10:00:05Z\"}]"
                        + ",\"context\":\"bob: what does alice drink?\""
                        + ",\"contextVector\":[0.0,1.0]"
                        + ",\"moreVectors\":[{\"model\":\"next\""
                        + ",\"vector\":[0.0,1.0,0.0]"
                        + ",\"contextVector\":null}]"
                        + ",\"sources\":[{\"session\":\"s1\""
                        + ",\"firstMessageId\":\"m1\""
                        + ",\"lastMessageId\":\"m9\""
                        + ",\"messages\":9"
                        + ",\"from\":\"2024-03-01T09:58:30Z\""
                        + ",\"to\":\"2024-03-01T09:59:00Z\"}]}",
                json);
        assertEquals(record, Json.MAPPER.readValue(json, MemoryRecord.class));
    }

    /**
     * A memory remembers the spans of dialog it was made from, each once, the newest {@value SourceSpan#MAX_SPANS};
     * one without any leaves the field out, and records written before it existed read with none.
     */
    @Test
    void sourcesAreKeptOnceEachAndTheNewestWhenThereAreMany() throws IOException {
        MemoryRecord plain = MemoryRecord.of("m1", "acme", "alice", "s1", MemoryType.PERSONAL, "likes tea", T0);
        assertEquals(List.of(), plain.sources());
        assertFalse(Json.MAPPER.writeValueAsString(plain).contains("sources"));
        assertEquals(
                List.of(),
                Json.MAPPER
                        .readValue(
                                "{\"id\":\"m1\",\"tenant\":\"acme\",\"type\":\"PERSONAL\",\"text\":\"x\"}",
                                MemoryRecord.class)
                        .sources());

        SourceSpan first = new SourceSpan("s1", "m1", "m2", 2, T0, T0.plusSeconds(1));
        MemoryRecord once = plain.withSources(List.of(first)).withSources(List.of(first));
        assertEquals(List.of(first), once.sources(), "a retried request's span is named once");
        MemoryRecord revised = once.revise("likes green tea", Map.of(), T0.plusSeconds(9));
        assertEquals(List.of(first), revised.sources(), "an edit keeps what the memory was made from");

        MemoryRecord many = plain;
        for (int i = 0; i < SourceSpan.MAX_SPANS + 5; i++) {
            many = many.withSources(List.of(new SourceSpan("s" + i, "a", "b", 2, T0, T0)));
        }
        assertEquals(SourceSpan.MAX_SPANS, many.sources().size());
        assertEquals("s5", many.sources().get(0).session(), "the oldest go first");
        assertEquals(
                "s" + (SourceSpan.MAX_SPANS + 4),
                many.sources().get(SourceSpan.MAX_SPANS - 1).session());
    }

    @Test
    void aSpanIsMadeOfTheMessagesItNames() {
        Instant t = T0;
        List<Message> messages = List.of(
                new Message("acme", "s1", "alice", "m3", Role.USER, null, t, List.of(new Block.Text("a"))),
                new Message(
                        "acme",
                        "s1",
                        "alice",
                        "m4",
                        Role.ASSISTANT,
                        null,
                        t.plusSeconds(5),
                        List.of(new Block.Text("b"))),
                new Message(
                        "acme", "s1", "alice", "m7", Role.USER, null, t.plusSeconds(9), List.of(new Block.Text("c"))));
        assertEquals(new SourceSpan("s1", "m3", "m7", 3, t, t.plusSeconds(9)), SourceSpan.of(messages));
        assertNull(SourceSpan.of(List.of()));
        assertThrows(IllegalArgumentException.class, () -> new SourceSpan("s/1", "m1", "m1", 1, t, t));
        assertThrows(IllegalArgumentException.class, () -> new SourceSpan("s1", "m1", "m1", 0, t, t));
    }

    @Test
    void contextAndItsVectorSurviveTheTopicsJson() throws IOException {
        MemoryRecord record = withContext();
        MemoryRecord read = Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(record), MemoryRecord.class);
        assertEquals(record, read);
        assertEquals("likes tea\nbob: what does alice drink?", read.contextText());
        // Records written before contexts existed read as having none.
        MemoryRecord old = Json.MAPPER.readValue(
                "{\"id\":\"m0\",\"tenant\":\"acme\",\"type\":\"PERSONAL\",\"text\":\"x\"}", MemoryRecord.class);
        assertNull(old.context());
        assertNull(old.contextText());
    }

    @Test
    void theContextVectorGoesWithTheTextOrModelItWasMadeFor() {
        MemoryRecord record = withContext();
        assertNull(record.withText("likes coffee", T0).contextVector(), "a new text needs a new vector");
        assertNull(record.withVector(new float[] {1, 1}, "other").contextVector(), "another model");
        assertNull(record.withVector(null, "model").contextVector(), "the stored source drops both");
        assertArrayEquals(
                new float[] {0, 1},
                record.withVector(new float[] {1, 1}, "model").contextVector());
        assertNull(record.withContext("new context").contextVector(), "a new context needs a new vector");
    }

    @Test
    void aContextIsCheckedLikeTheRestOfTheRecord() {
        MemoryRecord plain = MemoryRecord.of("m1", "acme", "alice", "s1", MemoryType.PERSONAL, "x", T0);
        assertNull(plain.withContext("   ").context(), "blank is none");
        assertThrows(
                IllegalArgumentException.class,
                () -> plain.withContext("c".repeat(MemoryRecord.MAX_CONTEXT_LENGTH + 1)));
        assertThrows(IllegalArgumentException.class, () -> plain.withContextVector(new float[] {1}));
        assertThrows(
                IllegalArgumentException.class, () -> plain.withContext("c").withContextVector(new float[] {0, 0}));
    }

    @Test
    void anotherModelsVectorsTravelWithTheContentTheyWereMadeFrom() throws IOException {
        MemoryRecord record = withContext()
                .withMoreVectors(new MemoryRecord.ModelVectors("next", new float[] {0, 0, 1}, new float[] {0, 1, 0}));
        MemoryRecord read = Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(record), MemoryRecord.class);
        assertEquals(record, read);
        assertEquals(true, read.hasVectorOf("next"));
        assertEquals(true, read.hasVectorOf("model"));
        assertEquals(false, read.hasVectorOf("other"));
        assertEquals(1, record.withConversationTime(T0).moreVectors().size(), "same content, same vectors");
        assertEquals(0, record.withText("likes coffee", T0).moreVectors().size(), "a new text needs new vectors");
        assertEquals(0, record.withVector(null, "model").moreVectors().size(), "no vectors at all");
        assertThrows(
                IllegalArgumentException.class,
                () -> record.withMoreVectors(new MemoryRecord.ModelVectors("model", new float[] {1, 0}, null)));
        // Records written before other models' vectors existed read as carrying none.
        assertEquals(
                0,
                Json.MAPPER
                        .readValue(
                                "{\"id\":\"m0\",\"tenant\":\"acme\",\"type\":\"PERSONAL\",\"text\":\"x\"}",
                                MemoryRecord.class)
                        .moreVectors()
                        .size());
    }
}
