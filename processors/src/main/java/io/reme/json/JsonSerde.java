package io.reme.json;

import com.fasterxml.jackson.databind.JavaType;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka serde for one record type as JSON. Deserialisation failures surface as
 * {@link SerializationException}; inputs that may be malformed are read as bytes and parsed by the
 * processor instead, so they can be dead-lettered with a reason.
 */
public final class JsonSerde<T> implements Serde<T> {
    private final JavaType type;

    private JsonSerde(JavaType type) {
        this.type = type;
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(Json.MAPPER.constructType(type));
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> {
            if (value == null) {
                return null;
            }
            return Json.bytes(value);
        };
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return Json.MAPPER.readValue(bytes, type);
            } catch (IOException e) {
                throw new SerializationException("cannot read " + type + " from " + topic, e);
            }
        };
    }
}
