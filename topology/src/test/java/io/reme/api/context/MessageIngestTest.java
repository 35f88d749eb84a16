package io.reme.api.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.api.ApiException;
import io.reme.json.Json;
import io.reme.message.TimeBounds;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The HTTP ingest never accepts a message the session processor would refuse: too large, or with a
 * time far from now.
 */
class MessageIngestTest {
    private static final int LIMIT = 4096;

    @Test
    void aMessageWhoseKeyAndValueTogetherPassTheLimitIsRefusedBeforeItIsProduced() {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        MessageIngest ingest = new MessageIngest(producer, "reme.messages", LIMIT, TimeBounds.DEFAULT);
        ObjectNode message = Json.MAPPER
                .createObjectNode()
                .put("session", "s1")
                .put("user", "u1")
                .put("id", "m1")
                .put("role", "user")
                .put("time", "2026-12-01T10:00:00Z")
                .put("content", "");
        ObjectNode produced = message.deepCopy().put("tenant", "acme");
        int valueBytes = produced.toString().getBytes(StandardCharsets.UTF_8).length;
        // The value alone is exactly at the limit; with its key the record is over it.
        message.put("content", "x".repeat(LIMIT - valueBytes));

        ApiException refused = assertThrows(ApiException.class, () -> ingest.ingest("acme", message));
        assertEquals(400, refused.status());
        assertEquals("too_large", refused.code());
        assertTrue(producer.history().isEmpty());

        message.put("content", "x".repeat(LIMIT - valueBytes - 100));
        ingest.ingest("acme", message);
        assertEquals(1, producer.history().size());
    }

    @Test
    void aTimeFarFromTheServersClockIsA400NamingTime() {
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        MessageIngest ingest = new MessageIngest(producer, "reme.messages", LIMIT, TimeBounds.DEFAULT);
        for (String time : new String[] {
            "9999-12-31T00:00:00Z",
            "1970-01-01T00:00:00Z",
            Instant.now().plus(Duration.ofDays(2)).toString()
        }) {
            ObjectNode message = Json.MAPPER
                    .createObjectNode()
                    .put("session", "s1")
                    .put("user", "u1")
                    .put("role", "user")
                    .put("content", "hello")
                    .put("time", time);
            ApiException refused = assertThrows(ApiException.class, () -> ingest.ingest("acme", message), time);
            assertEquals(400, refused.status());
            assertEquals("invalid_time", refused.code());
            assertTrue(refused.getMessage().startsWith("time "), refused.getMessage());
        }
        // Epoch milliseconds past the range of a long used to wrap around into some other time.
        ObjectNode huge = Json.MAPPER
                .createObjectNode()
                .put("session", "s1")
                .put("user", "u1")
                .put("role", "user")
                .put("content", "hello")
                .put("time", new BigInteger("99999999999999999999"));
        assertEquals(
                "invalid_time",
                assertThrows(ApiException.class, () -> ingest.ingest("acme", huge))
                        .code());
        // In a batch, the message is named too, and nothing of the batch is produced.
        ObjectNode good = Json.MAPPER
                .createObjectNode()
                .put("session", "s1")
                .put("user", "u1")
                .put("role", "user")
                .put("content", "hello")
                .put("time", Instant.now().plus(Duration.ofHours(1)).toString());
        ObjectNode bad = good.deepCopy().put("time", "9999-12-31T00:00:00Z");
        ApiException batch = assertThrows(
                ApiException.class,
                () -> ingest.ingest(
                        "acme", Json.MAPPER.createArrayNode().add(good).add(bad)));
        assertTrue(batch.getMessage().startsWith("message 1: time "), batch.getMessage());
        assertTrue(producer.history().isEmpty());

        ingest.ingest("acme", good);
        assertEquals(1, producer.history().size(), "an hour ahead is within the default skew of a day");
    }
}
