package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.json.JsonSerde;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class SessionHeaderSerdeTest {
    private final SessionHeaderSerde serde = new SessionHeaderSerde();

    private static SessionHeader full() {
        Instant t = Instant.parse("2026-11-30T09:00:00.123456789Z");
        return new SessionHeader(
                "t1",
                "s1",
                "u1",
                120,
                80,
                40,
                87_000,
                "m-119",
                t,
                1_764_493_200_000L,
                60,
                List.of(117L, 119L),
                true,
                900,
                3,
                t.minusSeconds(60),
                "req-2",
                7,
                new PendingCompaction("req-3", 7, 80, 99, 20, 40_000, t, List.of("call-1", "call-2")),
                t.plusSeconds(30),
                "no result within PT5M",
                t.minusSeconds(5),
                SessionCounters.zero()
                        .plus(SessionCounters.Counter.MESSAGES, 120)
                        .plus(SessionCounters.Counter.TRUNCATED_OUTPUTS, 4)
                        .plus(SessionCounters.Counter.SPANS_SHRUNK),
                20_000);
    }

    @Test
    void binaryFormRoundTripsEveryField() {
        for (SessionHeader header : List.of(full(), SessionHeader.empty("t1", "s1", "u1"))) {
            byte[] bytes = serde.serializer().serialize("t", header);
            assertEquals(SessionHeaderSerde.VERSION_1, bytes[0]);
            assertEquals(header, serde.deserializer().deserialize("t", bytes));
        }
    }

    @Test
    void readsTheJsonFormThatStoresAndChangelogsHoldFromBefore() {
        for (SessionHeader header : List.of(full(), SessionHeader.empty("t1", "s1", "u1"))) {
            byte[] json = JsonSerde.of(SessionHeader.class).serializer().serialize("t", header);
            assertEquals('{', json[0]);
            assertEquals(header, serde.deserializer().deserialize("t", json));
        }
    }

    @Test
    void smallerThanJsonAndDamagedValuesAreRefused() {
        byte[] bytes = serde.serializer().serialize("t", full());
        byte[] json = JsonSerde.of(SessionHeader.class).serializer().serialize("t", full());
        assertTrue(bytes.length < json.length / 2, "binary " + bytes.length + " json " + json.length);
        assertThrows(
                SerializationException.class,
                () -> serde.deserializer().deserialize("t", Arrays.copyOf(bytes, bytes.length - 1)));
        assertThrows(SerializationException.class, () -> serde.deserializer().deserialize("t", new byte[] {2}));
    }
}
