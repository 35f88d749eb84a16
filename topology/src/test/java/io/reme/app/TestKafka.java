package io.reme.app;

import io.reme.app.ConversationGenerator.Envelope;
import io.reme.diary.EditSignature;
import io.reme.llm.RequestSecret;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The integration tests' side of the broker: generating and producing load, reading topics as committed. */
final class TestKafka {
    private static final Logger LOG = LoggerFactory.getLogger(TestKafka.class);

    private TestKafka() {}

    /**
     * Conversations of several sessions made with the benchmark's generator: {@code sizes} maps
     * session name to message count. Every fifth tool output is {@code largeOutputBytes} long.
     */
    static Map<String, List<Envelope>> conversations(
            long seed, String tenant, Map<String, Integer> sizes, int largeOutputBytes) {
        ConversationGenerator generator = new ConversationGenerator(seed, 5, largeOutputBytes);
        Map<String, List<Envelope>> out = new LinkedHashMap<>();
        Instant start = Instant.parse("2026-03-02T09:00:00Z");
        sizes.forEach((session, count) ->
                out.put(tenant + "/" + session, generator.session(tenant, session, "user-" + session, count, start)));
        return out;
    }

    /** Round-robin over the sessions, {@code chunk} messages of each at a time; order within a session kept. */
    static List<List<Envelope>> rounds(Map<String, List<Envelope>> bySession, int chunk) {
        List<List<Envelope>> rounds = new ArrayList<>();
        Map<String, Integer> next = new HashMap<>();
        boolean more = true;
        while (more) {
            more = false;
            List<Envelope> round = new ArrayList<>();
            for (Map.Entry<String, List<Envelope>> session : bySession.entrySet()) {
                int from = next.getOrDefault(session.getKey(), 0);
                int to = Math.min(from + chunk, session.getValue().size());
                round.addAll(session.getValue().subList(from, to));
                next.put(session.getKey(), to);
                more |= to < session.getValue().size();
            }
            if (!round.isEmpty()) {
                rounds.add(round);
            }
        }
        return rounds;
    }

    /** Messages per session name (the part of the key after the tenant), added to {@code counts}. */
    static Map<String, Integer> count(Map<String, Integer> counts, List<Envelope> envelopes) {
        for (Envelope envelope : envelopes) {
            counts.merge(envelope.key().substring(envelope.key().indexOf('/') + 1), 1, Integer::sum);
        }
        return counts;
    }

    /** A diary edit as the workers and the watch submit it: signed with the tests' request secret. */
    static ProducerRecord<byte[], byte[]> signedEdit(String topic, byte[] key, byte[] value) {
        return new ProducerRecord<>(
                topic,
                null,
                key,
                value,
                List.of(EditSignature.header(RequestSecret.of(TestApps.REQUEST_SECRET), key, value)));
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.LINGER_MS_CONFIG,
                        5),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** Sends and waits until every record is acknowledged. */
    static void send(KafkaProducer<byte[], byte[]> producer, String topic, List<Envelope> envelopes) {
        for (Envelope envelope : envelopes) {
            producer.send(
                    new ProducerRecord<>(topic, envelope.key().getBytes(StandardCharsets.UTF_8), envelope.value()));
        }
        producer.flush();
    }

    /**
     * Reads a whole topic as a read_committed consumer would: until at least {@code expected}
     * records arrived and the position reached the last stable offset of every partition, so
     * anything committed beyond the expectation is read too. Returns what was read by then if that
     * does not happen within {@code timeout}.
     */
    static List<ConsumerRecord<String, byte[]>> readCommitted(
            String bootstrapServers, String topic, long expected, Duration timeout) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                20 * 1024 * 1024);
        List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            Set<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .collect(Collectors.toSet());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                if (out.size() >= expected) {
                    // endOffsets of a read_committed consumer is the last stable offset.
                    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
                    boolean caughtUp = partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    if (caughtUp) {
                        return out;
                    }
                }
                if (System.nanoTime() > deadline) {
                    // Fewer than expected: hand over what is there, so the caller can say exactly what is missing.
                    LOG.warn(
                            "read {} committed records of {} within {} s, expected {}",
                            out.size(),
                            topic,
                            timeout.toSeconds(),
                            expected);
                    return out;
                }
            }
        }
    }
}
