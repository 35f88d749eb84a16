package io.reme.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The HTTP ingest never accepts a message the session processor would refuse as too large. */
class MessageIngestTest {
    private static final int LIMIT = 4096;

    @Test
    void aMessageWhoseKeyAndValueTogetherPassTheLimitIsRefusedBeforeItIsProduced() {
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        MessageIngest ingest = new MessageIngest(producer, "reme.messages", LIMIT);
        ObjectNode message = Json.MAPPER.createObjectNode().put("session", "s1").put("user", "u1").put("id", "m1")
                .put("role", "user").put("time", "2026-12-01T10:00:00Z").put("content", "");
        ObjectNode produced = message.deepCopy().put("tenant", "acme");
        int valueBytes = produced.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
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
}
