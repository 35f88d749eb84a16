package io.reme.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class MessageProducerTest {
    @Test
    void writesTheEnvelopeKeyedTenantSlashSessionWithTenantIdAndTimeAndNoHeaders() throws Exception {
        MockProducer<String, byte[]> mock =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        try (MessageProducer producer = new MessageProducer(mock, MessageProducer.DEFAULT_TOPIC, "acme")) {
            producer.send(MessageEnvelope.text("s-42", "alice", "user", "I prefer window seats."))
                    .get();
            producer.send(MessageEnvelope.text("s-42", "alice", "assistant", null)
                            .withToolCalls(List.of(ToolCall.function("call_1", "read_file", "{\"path\":\"/a\"}")))
                            .withId("m-2"))
                    .get();
        }

        List<ProducerRecord<String, byte[]>> sent = mock.history();
        assertEquals(2, sent.size());
        ProducerRecord<String, byte[]> first = sent.getFirst();
        assertEquals("reme.messages", first.topic());
        assertEquals("acme/s-42", first.key());
        assertFalse(first.headers().iterator().hasNext(), "the AsyncAPI document names no headers");
        JsonNode value = RemeClient.mapper().readTree(first.value());
        assertEquals("acme", value.path("tenant").asText());
        assertEquals("I prefer window seats.", value.path("content").asText());
        assertTrue(value.hasNonNull("id") && value.hasNonNull("time"));
        assertFalse(value.has("tool_calls"), "absent fields are left out");
        JsonNode second = RemeClient.mapper().readTree(sent.get(1).value());
        assertEquals("m-2", second.path("id").asText());
        assertFalse(second.hasNonNull("content"));
        assertEquals(
                "read_file",
                second.path("tool_calls").get(0).path("function").path("name").asText());
    }

    @Test
    void aMessageOfAnotherTenantIsRefused() {
        MockProducer<String, byte[]> mock =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        try (MessageProducer producer = new MessageProducer(mock, MessageProducer.DEFAULT_TOPIC, "acme")) {
            MessageEnvelope other = MessageEnvelope.text("s", "u", "user", "x").withTenant("globex");
            assertThrows(IllegalArgumentException.class, () -> producer.send(other));
        }
        assertTrue(mock.history().isEmpty());
    }

    @Test
    void theProducerIsIdempotentWithAcksAllAndRefusesSettingsThatSayOtherwise() {
        Map<String, Object> settings =
                MessageProducer.producerSettings(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092"));

        assertEquals("true", settings.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG));
        assertEquals("all", settings.get(ProducerConfig.ACKS_CONFIG));
        assertEquals(StringSerializer.class.getName(), settings.get(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG));
        assertThrows(
                IllegalArgumentException.class,
                () -> MessageProducer.producerSettings(Map.of(ProducerConfig.ACKS_CONFIG, "1")));
        assertThrows(
                IllegalArgumentException.class,
                () -> MessageProducer.producerSettings(Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)));
    }

    @Test
    void anEnvelopeIsCheckedWhenBuilt() {
        assertThrows(IllegalArgumentException.class, () -> MessageEnvelope.text("a/b", "u", "user", "x"));
        assertThrows(IllegalArgumentException.class, () -> MessageEnvelope.text("s", "u", "robot", "x"));
        assertThrows(IllegalArgumentException.class, () -> MessageEnvelope.text("s", "x".repeat(65), "user", "x"));
    }
}
