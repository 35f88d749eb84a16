package io.reme.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JsonTest {
    record Stamp(String id, Instant at) {}

    @Test
    void bytesWritesWhatTheMapperWrites() throws Exception {
        Stamp stamp = new Stamp("m1", Instant.parse("2026-12-01T10:00:00Z"));
        assertArrayEquals(Json.MAPPER.writeValueAsBytes(stamp), Json.bytes(stamp));
        assertEquals(
                "{\"id\":\"m1\",\"at\":\"2026-12-01T10:00:00Z\"}",
                new String(Json.bytes(stamp), StandardCharsets.UTF_8));
    }

    @Test
    void aValueJacksonCannotWriteIsAnUncheckedFailure() {
        // No properties at all: Jackson refuses to write it rather than write {}.
        assertThrows(UncheckedIOException.class, () -> Json.bytes(new Object()));
    }
}
