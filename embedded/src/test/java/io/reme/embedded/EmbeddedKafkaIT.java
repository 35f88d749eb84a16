package io.reme.embedded;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checks that the embedded broker serves plain, transactional and large-record traffic and keeps data and address across a restart. */
@Tag("integration")
class EmbeddedKafkaIT {

    private static final Duration POLL_DEADLINE = Duration.ofSeconds(20);
    private static final int BIG_RECORD_BYTES = 16 * 1024 * 1024;

    @TempDir
    Path dataDir;

    @Test
    void servesTrafficAndKeepsItAcrossRestart() throws Exception {
        List<String> notes = List.of("a=first note", "b=second note", "c=third note");
        List<String> committed = List.of("t1=one", "t2=two", "t3=three");
        String bootstrap;

        EmbeddedKafka first = EmbeddedKafka.start(dataDir);
        try {
            bootstrap = first.bootstrapServers();
            assertTrue(bootstrap.startsWith("127.0.0.1:"), bootstrap);
            assertEquals(dataDir, first.dataDir());

            try (Admin admin = admin(bootstrap)) {
                admin.createTopics(List.of(topic("notes"), topic("txn"), topic("big")))
                        .all()
                        .get();
            }

            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
                for (String note : notes) {
                    producer.send(record("notes", note)).get();
                }
            }
            assertEquals(notes, consumeAsGroup(bootstrap, "notes", "reader", notes.size()));

            // The aborted record sits between committed ones, so a broken read_committed filter changes the list.
            Map<String, Object> txConfig = producerConfig(bootstrap);
            txConfig.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-" + UUID.randomUUID());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(txConfig)) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(record("txn", committed.get(0)));
                producer.send(record("txn", committed.get(1)));
                producer.commitTransaction();
                producer.beginTransaction();
                producer.send(record("txn", "t9=aborted"));
                producer.flush();
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(record("txn", committed.get(2)));
                producer.commitTransaction();
            }
            assertEquals(committed, readFromStart(bootstrap, "txn", IsolationLevel.READ_COMMITTED, committed.size()));

            byte[] big = new byte[BIG_RECORD_BYTES];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31 + 7);
            }
            Map<String, Object> bigConfig = producerConfig(bootstrap);
            bigConfig.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 20 * 1024 * 1024);
            bigConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            bigConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(bigConfig)) {
                producer.send(new ProducerRecord<>("big", big)).get();
            }
            assertArrayEquals(big, readBigRecord(bootstrap));

            IllegalStateException second =
                    assertThrows(IllegalStateException.class, () -> EmbeddedKafka.start(dataDir));
            assertTrue(second.getMessage().contains("is in use"), second.getMessage());
        } finally {
            first.close();
        }
        // close() is called again by shutdown paths that cannot know whether it already ran.
        first.close();

        try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir)) {
            assertEquals(bootstrap, kafka.bootstrapServers());
            try (Admin admin = admin(bootstrap)) {
                assertTrue(admin.listTopics().names().get().containsAll(Set.of("notes", "txn", "big")));
                TopicPartition notesPartition = new TopicPartition("notes", 0);
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets("reader")
                        .partitionsToOffsetAndMetadata()
                        .get();
                assertEquals(notes.size(), offsets.get(notesPartition).offset());
                assertEquals(
                        notes.size(),
                        admin.listOffsets(Map.of(notesPartition, OffsetSpec.latest()))
                                .partitionResult(notesPartition)
                                .get()
                                .offset());
            }
            assertEquals(notes, readFromStart(bootstrap, "notes", IsolationLevel.READ_UNCOMMITTED, notes.size()));
            assertEquals(committed, readFromStart(bootstrap, "txn", IsolationLevel.READ_COMMITTED, committed.size()));
        }
    }

    @Test
    void itsDataIsPrivateToItsOwner() throws Exception {
        Path data = dataDir.resolve("private");
        Assumptions.assumeTrue(Files.getFileStore(dataDir).supportsFileAttributeView("posix"));
        // What an older version left: a folder and a file any local user could read.
        Path kafka = Files.createDirectories(
                data.resolve("kafka"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(kafka, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path note = Files.writeString(kafka.resolve("old-note.txt"), "left by an older version");
        Files.setPosixFilePermissions(note, PosixFilePermissions.fromString("rw-r--r--"));

        try (EmbeddedKafka _ = EmbeddedKafka.start(data)) {
            // Files the broker creates while running keep its umask (rw-r--r--), in folders no one else can enter.
            assertEquals(
                    Map.of(),
                    permissionsNot("rwx------", kafka, Files::isDirectory),
                    "every folder, including those an older start left");
            for (Path file : List.of(note, kafka.resolve("ports.properties"), kafka.resolve("logs/meta.properties"))) {
                assertEquals("rw-------", permissions(file), file.toString());
            }
        }
        Path segment = kafka.resolve("logs/__cluster_metadata-0/00000000000000000000.log");
        // Made by the broker while running, with its umask.
        try (EmbeddedKafka _ = EmbeddedKafka.start(data)) {
            assertEquals("rw-------", permissions(segment), "tightened at the next start");
            assertEquals(Map.of(), permissionsNot("rwx------", kafka, Files::isDirectory));
        }
    }

    private static Map<Path, String> permissionsNot(String wanted, Path dir, Predicate<Path> which) throws IOException {
        Map<Path, String> others = new TreeMap<>();
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) tree::iterator) {
                if (which.test(path) && !permissions(path).equals(wanted)) {
                    others.put(dir.relativize(path), permissions(path));
                }
            }
        }
        return others;
    }

    private static String permissions(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void rejectsOverridesOfManagedSettings() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> EmbeddedKafka.start(dataDir, Map.of("listeners", "PLAINTEXT://0.0.0.0:9092")));
        assertTrue(e.getMessage().contains("listeners"), e.getMessage());
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private static NewTopic topic(String name) {
        return new NewTopic(name, 1, (short) 1);
    }

    /** Encodes "key=value" test strings as keyed records so keys are checked too. */
    private static ProducerRecord<String, String> record(String topic, String keyValue) {
        String[] parts = keyValue.split("=", 2);
        return new ProducerRecord<>(topic, parts[0], parts[1]);
    }

    private static Map<String, Object> producerConfig(String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return config;
    }

    private static Map<String, Object> consumerConfig(String bootstrap, IsolationLevel isolation) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return config;
    }

    private static List<String> consumeAsGroup(String bootstrap, String topic, String group, int count) {
        Map<String, Object> config = consumerConfig(bootstrap, IsolationLevel.READ_UNCOMMITTED);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            List<String> seen = pollUntil(consumer, count);
            consumer.commitSync();
            return seen;
        }
    }

    private static List<String> readFromStart(String bootstrap, String topic, IsolationLevel isolation, int count) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(bootstrap, isolation))) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            return pollUntil(consumer, count);
        }
    }

    private static List<String> pollUntil(KafkaConsumer<String, String> consumer, int count) {
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + POLL_DEADLINE.toNanos();
        while (seen.size() < count && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                seen.add(r.key() + "=" + r.value());
            }
        }
        return seen;
    }

    private static byte[] readBigRecord(String bootstrap) {
        Map<String, Object> config = consumerConfig(bootstrap, IsolationLevel.READ_UNCOMMITTED);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(new TopicPartition("big", 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + POLL_DEADLINE.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    return r.value();
                }
            }
            return new byte[0];
        }
    }
}
