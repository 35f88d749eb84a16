package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryEmbeddingTest {
    private static MemoryRecord memory(String text) {
        return MemoryRecord.of("m", "acme", "alice", null, MemoryType.DIALOG_CHUNK, text, Instant.EPOCH);
    }

    /** One vector per text: {i, 1}, so where each went is seen. */
    private static List<float[]> numbered(int n) {
        List<float[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new float[] {i, 1});
        }
        return out;
    }

    @Test
    void theTextThenItsTextWithContext() {
        MemoryRecord withContext = memory("likes tea").withContext("we talked about drinks");
        assertEquals(List.of("likes tea", withContext.contextText()), MemoryEmbedding.texts(withContext));
        assertEquals(List.of("short"), MemoryEmbedding.texts(memory("short")));

        MemoryRecord embedded = MemoryEmbedding.withVectors(withContext, numbered(2), "m");
        assertEquals("m", embedded.vectorModel());
        assertArrayEquals(new float[] {0, 1}, embedded.vector());
        assertArrayEquals(new float[] {1, 1}, embedded.contextVector());
        assertNull(
                MemoryEmbedding.withVectors(memory("short"), numbered(1), "m").contextVector());
    }

    @Test
    void aContextThatCouldNotBeEmbeddedIsLeftOutAndTheTextIsNot() {
        MemoryRecord withContext = memory("walks daily").withContext("around");
        List<float[]> noContext = numbered(2);
        noContext.set(1, null);
        MemoryRecord embedded = MemoryEmbedding.withVectors(withContext, noContext, "m");
        assertNull(embedded.contextVector());
        assertArrayEquals(new float[] {0, 1}, embedded.vector());

        assertThrows(
                IllegalArgumentException.class,
                () -> MemoryEmbedding.withVectors(withContext, numbered(1), "m"),
                "one vector short");
        List<float[]> noText = numbered(2);
        noText.set(0, null);
        assertThrows(NullPointerException.class, () -> MemoryEmbedding.withVectors(withContext, noText, "m"));
    }

    @Test
    void anotherModelsVectorsGoBesideTheRecordsOwn() {
        MemoryRecord own = MemoryEmbedding.withVectors(memory("x").withContext("y"), numbered(2), "old");
        MemoryRecord both = own.withMoreVectors(
                MemoryEmbedding.modelVectors(own, List.of(new float[] {1, 2, 3}, new float[] {3, 2, 1}), "new"));
        assertEquals("old", both.vectorModel());
        assertArrayEquals(new float[] {3, 2, 1}, both.moreVectors().get(0).contextVector());
    }
}
