package io.reme.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.json.JsonSerde;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class StoredMessageSerdeTest {
    private final StoredMessageSerde serde = new StoredMessageSerde();

    private static StoredMessage sample(String output) {
        return new StoredMessage(
                42,
                1234,
                new Message(
                        "t1",
                        "s1",
                        "u1",
                        "m-7",
                        Role.ASSISTANT,
                        null,
                        Instant.parse("2026-11-30T09:00:00.123456789Z"),
                        List.of(
                                new Block.Text("héllo \"quoted\" \n\t wörld 😀"),
                                new Block.Thinking("hmm"),
                                new Block.ToolUse("call-1", "grep", "{\"q\":\"x\"}"),
                                new Block.ToolResult("call-1", "grep", output),
                                new Block.Image(null, "image/png", "aGVsbG8="),
                                new Block.Image("https://example.com/a.png", null, null))));
    }

    @Test
    void binaryFormRoundTripsEveryBlockKind() {
        StoredMessage stored = sample("line 1\nline 2\u0000\u2028end");
        byte[] bytes = serde.serializer().serialize("t", stored);
        assertEquals(StoredMessageSerde.VERSION_1, bytes[0]);
        assertEquals(stored, serde.deserializer().deserialize("t", bytes));
    }

    @Test
    void readsTheJsonFormThatStoresAndChangelogsHoldFromBefore() {
        StoredMessage stored = sample("x".repeat(5000));
        byte[] json = JsonSerde.of(StoredMessage.class).serializer().serialize("t", stored);
        assertEquals('{', json[0]);
        assertEquals(stored, serde.deserializer().deserialize("t", json));
    }

    @Test
    void aLargeOutputCostsItsBytesAndLittleMore() {
        String output = "some \"json\" output\n".repeat(5000);
        byte[] bytes = serde.serializer().serialize("t", sample(output));
        byte[] json = JsonSerde.of(StoredMessage.class).serializer().serialize("t", sample(output));
        assertTrue(bytes.length < output.length() + 400, "binary " + bytes.length);
        assertTrue(bytes.length < json.length, "binary " + bytes.length + " json " + json.length);
    }

    @Test
    void nullIsATombstoneAndUnknownFormatsAreRefused() {
        assertNull(serde.serializer().serialize("t", null));
        assertNull(serde.deserializer().deserialize("t", null));
        assertThrows(SerializationException.class, () -> serde.deserializer().deserialize("t", new byte[] {9, 0}));
        byte[] bytes = serde.serializer().serialize("t", sample("out"));
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 3);
        assertThrows(SerializationException.class, () -> serde.deserializer().deserialize("t", cut));
        assertArrayEquals(bytes, serde.serializer().serialize("t", sample("out")));
    }
}
