package io.reme.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * The one configured Jackson mapper: ISO-8601 instants (read by {@link UtcInstantDeserializer} in the
 * form written here), unknown fields ignored for forward compatibility.
 */
public final class Json {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            // Registered later, so it takes precedence over JavaTimeModule's reader for Instant.
            .addModule(new SimpleModule("utc-instants").addDeserializer(Instant.class, new UtcInstantDeserializer()))
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            .build();

    private Json() {}

    /**
     * The value as JSON. Every value this project writes is a record Jackson can write, so a failure is a bug,
     * thrown unchecked, not a condition callers handle.
     */
    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
