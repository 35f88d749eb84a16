package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class MemoryKeyTest {
    @Test
    void theTenantEndsAtTheFirstSlashAndTheIdHoldsTheRest() {
        MemoryKey chunk = MemoryKey.parse("acme/diary:alice:MEMORY:0");
        assertEquals(new MemoryKey("acme", "diary:alice:MEMORY:0"), chunk);
        assertEquals("acme/diary:alice:MEMORY:0", chunk.key());
        assertArrayEquals("acme/diary:alice:MEMORY:0".getBytes(StandardCharsets.UTF_8), chunk.bytes());
        assertEquals(new MemoryKey("a", "b/c"), MemoryKey.parse("a/b/c"));
        MemoryRecord memory = MemoryRecord.of("m1", "acme", "alice", null, MemoryType.PERSONAL, "tea", Instant.EPOCH);
        assertEquals("acme/m1", MemoryKey.of(memory).key());
    }

    @Test
    void aKeyWithoutATenantOrAnIdIsRefused() {
        for (String bad : new String[] {null, "", "acme", "/m1", "acme/", "../x/m1", "a b/m1"}) {
            assertThrows(IllegalArgumentException.class, () -> MemoryKey.parse(bad), String.valueOf(bad));
        }
    }
}
