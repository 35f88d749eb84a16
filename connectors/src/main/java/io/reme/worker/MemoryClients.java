package io.reme.worker;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka clients of the workers that write memories ({@link MemoryEmbedder}, {@link MemoryReembedder}): a consumer
 * in its own group that reads committed records from the earliest on and commits by hand, in polls of 256; an
 * idempotent producer that waits for every replica.
 */
final class MemoryClients {
    private MemoryClients() {}

    static KafkaConsumer<String, byte[]> consumer(Map<String, Object> clientProps, String groupId) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 256);
        return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }

    static KafkaProducer<String, byte[]> producer(Map<String, Object> clientProps) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }
}
