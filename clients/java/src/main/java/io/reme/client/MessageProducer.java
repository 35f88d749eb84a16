package io.reme.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes one tenant's conversation messages straight to the {@code messages} topic, as the AsyncAPI document
 * ({@code /asyncapi.json}) describes it: key {@code tenant/session} (every message of a session on one partition, in
 * order), the envelope as JSON, no headers (the document names none for this topic), from an idempotent producer
 * with {@code acks=all}. For platforms that already run Kafka clients; the others post to {@code /v1/messages}.
 *
 * <p>Each envelope gets the producer's tenant (one naming another is refused), an {@code id} (a UUID) and a {@code
 * time} (now) when it has none ({@link #complete}). A caller that may send a message again after a failure sends
 * the completed envelope, whose id makes the repeat one the session drops rather than a second message. Needs {@code org.apache.kafka:kafka-clients} on the class path (an optional
 * dependency of this jar). Thread-safe as the Kafka producer is; close it once.
 */
public final class MessageProducer implements AutoCloseable {
    /** The topic's name under the default prefix {@code reme.} ({@code reme.topics.prefix}). */
    public static final String DEFAULT_TOPIC = "reme.messages";

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final String tenant;

    /** A producer helper over a producer the caller configured (idempotent, acks=all) and owns until closed here. */
    public MessageProducer(Producer<String, byte[]> producer, String topic, String tenant) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.tenant = MessageEnvelope.requireId("tenant", tenant);
    }

    /**
     * A helper with a producer of its own to {@link #DEFAULT_TOPIC}: {@code settings} (bootstrap servers, security)
     * plus the settings the topic's contract needs ({@link #producerSettings}).
     */
    public static MessageProducer create(Map<String, Object> settings, String tenant) {
        return create(settings, DEFAULT_TOPIC, tenant);
    }

    /** As {@link #create(Map, String)}, to a topic of another prefix. */
    public static MessageProducer create(Map<String, Object> settings, String topic, String tenant) {
        return new MessageProducer(new KafkaProducer<>(producerSettings(settings)), topic, tenant);
    }

    /**
     * The caller's settings with idempotence on, {@code acks=all} and the key and value serializers; a setting of
     * the caller's that contradicts them is refused, since it would break the once-and-in-order the pipeline relies
     * on.
     */
    public static Map<String, Object> producerSettings(Map<String, Object> settings) {
        Map<String, Object> merged = new HashMap<>(settings);
        require(merged, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        require(merged, ProducerConfig.ACKS_CONFIG, "all");
        merged.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        merged.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return merged;
    }

    private static void require(Map<String, Object> settings, String name, String value) {
        Object given = settings.get(name);
        if (given != null && !value.equalsIgnoreCase(given.toString())) {
            throw new IllegalArgumentException(name + " must be " + value + " for the messages topic, got " + given);
        }
        settings.put(name, value);
    }

    /** The envelope as it is written: with this producer's tenant, and an id and a time if it had none. */
    public MessageEnvelope complete(MessageEnvelope envelope) {
        if (envelope.tenant() != null && !envelope.tenant().equals(tenant)) {
            throw new IllegalArgumentException(
                    "the message names tenant '" + envelope.tenant() + "', this producer writes for '" + tenant + "'");
        }
        MessageEnvelope complete = envelope.withTenant(tenant);
        if (complete.id() == null) {
            complete = complete.withId(UUID.randomUUID().toString());
        }
        if (complete.time() == null) {
            complete = complete.withTime(Instant.now());
        }
        return complete;
    }

    /** The record this helper writes for an envelope: key {@code tenant/session}, the {@linkplain #complete completed}
     * envelope as JSON. */
    public ProducerRecord<String, byte[]> record(MessageEnvelope envelope) {
        MessageEnvelope complete = complete(envelope);
        try {
            byte[] value = RemeClient.mapper().writeValueAsBytes(complete);
            return new ProducerRecord<>(topic, tenant + "/" + complete.session(), value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the message cannot be written as JSON", e);
        }
    }

    /** Sends an envelope; the future completes once every in-sync replica has it. */
    public Future<RecordMetadata> send(MessageEnvelope envelope) {
        return producer.send(record(envelope));
    }

    /** Waits until every message sent so far is written (or failed). */
    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
