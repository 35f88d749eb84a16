package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.admin.TopicProvisioner;
import io.reme.diary.DiaryDocument;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetterPayload;
import io.reme.embedded.FileSinks;
import io.reme.json.Json;
import io.reme.local.FileSinkSettings;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.session.ArchivedMessage;
import io.reme.topic.RecordLimits;
import io.reme.topic.Topics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.Exit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The file sink connectors in a real Connect worker (in this JVM, one per class) against the
 * in-JVM broker: records in, files out byte for byte; hostile IDs dead-lettered or encoded, never
 * outside the root; a redelivery of every offset from the start changes no file; records too large to
 * write or to dead-letter whole are dead-lettered as excerpts.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("integration")
class FileSinksIT extends WithBroker {
    private static final Topics TOPICS = new Topics("fs.");
    private static final Instant TIME = Instant.parse("2026-11-30T10:00:00Z");
    /** What the application sets for the default input limit. */
    private static final int SINK_RECORD_MAX_BYTES = RecordLimits.DEFAULT_INPUT_BYTES + RecordLimits.HEADROOM;

    private static Path root;
    private static FileSinks sinks;
    private static KafkaProducer<byte[], byte[]> producer;
    private static final List<String> HOOKS_ADDED = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startSinks() {
        root = dir.resolve("workspace");
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            TopicProvisioner.ensure(admin, TOPICS, TOPICS.specs(2, 1 << 20, 1 << 24, Duration.ofDays(3)), -1);
        }
        producer = TestKafka.producer(broker.bootstrapServers());
        // Kafka's code registers JVM shutdown hooks through Exit; record which ones starting the sinks adds.
        Exit.setShutdownHookAdder((name, hook) -> HOOKS_ADDED.add(name));
        try {
            sinks = start();
        } finally {
            Exit.resetShutdownHookAdder();
        }
    }

    @Test
    @Order(0)
    void connectRegistersNoShutdownHookOfItsOwn() {
        // Its hook raced the application's close and could keep the JVM up after SIGTERM; close stops the worker.
        assertFalse(HOOKS_ADDED.contains("connect-shutdown-hook"), "hooks added: " + HOOKS_ADDED);
    }

    private static FileSinks start() {
        return FileSinks.start(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                dir.resolve("data"),
                new FileSinkSettings(
                        "it", TOPICS, root, Duration.ofDays(3650), TestApps.REQUEST_SECRET, SINK_RECORD_MAX_BYTES),
                // Dynamic members, so that a closed worker leaves its groups and they can be deleted.
                new FileSinkSettings.Membership("", Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stopSinks() {
        if (sinks != null) {
            sinks.close();
        }
        if (producer != null) {
            producer.close();
        }
    }

    private static ArchivedMessage archived(String session, String user, String date, long seq, String text) {
        Message message = new Message(
                "acme",
                session,
                user,
                session + "-" + seq,
                Role.ASSISTANT,
                null,
                Instant.parse(date + "T23:59:00Z"),
                List.of(new Block.Text(text)));
        return new ArchivedMessage(
                "acme", session, user, date, seq, "acme/" + session + "#1", message, new ArchivedMessage.Origin(0, 1));
    }

    private static byte[] json(Object value) {
        try {
            return Json.MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void send(String topic, String key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value));
    }

    private static void await(String what, BooleanSupplier done) {
        Awaitility.await(what)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(done::getAsBoolean);
    }

    private static boolean holds(Path file, byte[] content) {
        try {
            return Files.exists(file) && Arrays.equals(Files.readAllBytes(file), content);
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] lines(ArchivedMessage... messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ArchivedMessage message : messages) {
            out.writeBytes(json(message));
            out.write('\n');
        }
        return out.toByteArray();
    }

    @Test
    @Order(1)
    void recordsInFilesOutByteForByte() throws Exception {
        ArchivedMessage a0 = archived("s1", "alice", "2026-11-29", 0, "Kafka consumer lag \"quoted\"\nsecond line 日本");
        ArchivedMessage a1 = archived("s1", "alice", "2026-11-30", 1, "next day");
        ArchivedMessage b0 = archived("s2", "bob", "2026-11-30", 0, "bob here");
        for (ArchivedMessage m : List.of(a0, a1, b0)) {
            send(TOPICS.dialog(), "acme/" + m.session(), json(m));
        }
        DiaryDocument memory1 = new DiaryDocument(
                "acme", "alice", "MEMORY", "# Long-term memory\n- old\n", 1, "e1", "r1", TIME, List.of());
        DiaryDocument memory2 = new DiaryDocument(
                "acme", "alice", "MEMORY", "# Long-term memory\n- likes tea\n", 2, "e2", "r2", TIME, List.of());
        DiaryDocument day = new DiaryDocument(
                "acme", "alice", "2026-11-30", "# 2026-11-30\n- moved offsets\n", 1, "e3", "r3", TIME, List.of());
        send(TOPICS.diary(), "acme/alice/MEMORY", json(memory1));
        send(TOPICS.diary(), "acme/alice/MEMORY", json(memory2));
        send(TOPICS.diary(), "acme/alice/2026-11-30", json(day));
        byte[] output = "total 42\n-rw-r--r-- 1 app app 10 notes.txt\n✓ done".getBytes(StandardCharsets.UTF_8);
        send(TOPICS.toolResults(), "acme/0123abcd", output);
        send(TOPICS.toolResults(), "acme/gone", output);
        send(TOPICS.toolResults(), "acme/gone", null);
        producer.flush();

        Path alice = root.resolve("acme/alice");
        await("alice's dialog of 2026-11-29", () -> holds(alice.resolve("dialog/2026-11-29.jsonl"), lines(a0)));
        await("alice's dialog of 2026-11-30", () -> holds(alice.resolve("dialog/2026-11-30.jsonl"), lines(a1)));
        await("bob's dialog", () -> holds(root.resolve("acme/bob/dialog/2026-11-30.jsonl"), lines(b0)));
        await(
                "MEMORY.md version 2",
                () -> holds(alice.resolve("MEMORY.md"), memory2.content().getBytes(StandardCharsets.UTF_8)));
        await(
                "the day's diary",
                () -> holds(alice.resolve("memory/2026-11-30.md"), day.content().getBytes(StandardCharsets.UTF_8)));
        await("the tool output", () -> holds(root.resolve("acme/tool_result/0123abcd.txt"), output));
        assertFalse(Files.exists(root.resolve("acme/tool_result/gone.txt")), "deleted by its tombstone");
    }

    @Test
    @Order(2)
    void hostileIdsAreDeadLetteredOrEncodedAndNeverLeaveTheRoot() throws Exception {
        byte[] output = "x".getBytes(StandardCharsets.UTF_8);
        List<String> rejected = List.of(
                "acme/../x",
                "../acme/x",
                "acme/a/b",
                "acme/a\\b",
                "acme/" + "l".repeat(200),
                "acme/ünïcødé",
                "ac me/x",
                "acme/");
        for (String key : rejected) {
            send(TOPICS.toolResults(), key, output);
        }
        String hostileDialog = new String(json(archived("s9", "mallory", "2026-11-30", 0, "x")), StandardCharsets.UTF_8)
                .replace("\"mallory\"", "\"../../mallory\"");
        send(TOPICS.dialog(), "acme/s9", hostileDialog.getBytes(StandardCharsets.UTF_8));
        send(
                TOPICS.diary(),
                "acme/../MEMORY",
                json(new DiaryDocument("acme", "x", "MEMORY", "x", 1, "e", "a", TIME, List.of())));
        send(TOPICS.toolResults(), "CON/nul", output);
        producer.flush();

        await("the reserved names, encoded", () -> holds(root.resolve("_CON/tool_result/_nul.txt"), output));
        List<ConsumerRecord<String, byte[]>> dead = TestKafka.readCommitted(
                broker.bootstrapServers(), TOPICS.dlq(), rejected.size() + 2, Duration.ofSeconds(30));
        assertEquals(
                rejected.size() + 2,
                dead.size(),
                dead.stream().map(ConsumerRecord::key).toList().toString());
        for (ConsumerRecord<String, byte[]> record : dead) {
            assertTrue(
                    record.headers().lastHeader("__connect.errors.exception.message") != null,
                    "each dead letter says why");
        }
        try (Stream<Path> all = Files.walk(dir)) {
            List<Path> strays = all.filter(Files::isRegularFile)
                    .filter(p -> !p.startsWith(root)
                            && !p.startsWith(dir.resolve("broker"))
                            && !p.startsWith(dir.resolve("data")))
                    .toList();
            assertEquals(List.of(), strays, "nothing is written outside the working directory");
        }
        try (Stream<Path> tenants = Files.list(root)) {
            assertEquals(
                    List.of(".state", "_CON", "acme"),
                    tenants.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    @Order(3)
    void redeliveringEveryOffsetChangesNoFile() throws Exception {
        Map<String, byte[]> before = snapshot();
        assertTrue(before.size() >= 7, before.keySet().toString());
        sinks.close();
        sinks = null;
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            List<String> groups = FileSinks.connectorConfigs(new FileSinkSettings(
                            "it", TOPICS, root, Duration.ofDays(1), TestApps.REQUEST_SECRET, SINK_RECORD_MAX_BYTES))
                    .keySet()
                    .stream()
                    .map(name -> "connect-" + name)
                    .toList();
            admin.deleteConsumerGroups(groups).all().get();
        }
        sinks = start();
        ArchivedMessage marker = archived("s1", "alice", "2026-12-01", 2, "after the redelivery");
        send(TOPICS.dialog(), "acme/s1", json(marker));
        producer.flush();
        await(
                "the record after the replayed ones",
                () -> holds(root.resolve("acme/alice/dialog/2026-12-01.jsonl"), lines(marker)));
        // The other sinks replay on their own partitions: one may be rewriting a file (to a temporary beside
        // it) when the dialog marker lands, so the files are compared once no write is in flight.
        Map<String, byte[]> after = Awaitility.await("no sink write in progress")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(
                        FileSinksIT::snapshot,
                        files -> files.keySet().stream().noneMatch(name -> name.endsWith(".tmp")));
        after.remove("acme/alice/dialog/2026-12-01.jsonl");
        assertEquals(before.keySet(), after.keySet());
        for (String file : before.keySet()) {
            assertArrayEquals(before.get(file), after.get(file), file);
        }
    }

    @Test
    @Order(4)
    void oversizedRecordsAreDeadLetteredAsExcerptsNotWrittenOrLost() throws Exception {
        byte[] huge = new byte[10 * 1024 * 1024];
        Arrays.fill(huge, (byte) 'h');
        byte[] big = new byte[2 * 1024 * 1024];
        Arrays.fill(big, (byte) 'b');
        try (KafkaProducer<byte[], byte[]> large = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                        16 * 1024 * 1024),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            // Over record.max.bytes: refused unread. Within it but unwritable (its key), and over the 1 MiB the
            // dead-letter producer sends: before, Connect failed to send it and it was gone.
            large.send(new ProducerRecord<>(TOPICS.toolResults(), utf8("acme/huge"), huge))
                    .get();
            large.send(new ProducerRecord<>(TOPICS.toolResults(), utf8("acme/../big"), big))
                    .get();
        }
        Map<String, ConsumerRecord<String, byte[]>> dead = Awaitility.await("both dead letters")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () ->
                                TestKafka.readCommitted(
                                                broker.bootstrapServers(), TOPICS.dlq(), 1, Duration.ofSeconds(5))
                                        .stream()
                                        .filter(r -> r.key() != null
                                                && (r.key().equals("acme/huge")
                                                        || r.key().equals("acme/../big")))
                                        .collect(Collectors.toMap(ConsumerRecord::key, r -> r, (a, b) -> b)),
                        found -> found.size() == 2);
        assertExcerpt(dead.get("acme/huge"), huge, "over record.max.bytes");
        assertExcerpt(dead.get("acme/../big"), big, "unwritable tool result");
        assertFalse(Files.exists(root.resolve("acme/tool_result/huge.txt")), "nothing of its size is written");
    }

    private static void assertExcerpt(ConsumerRecord<String, byte[]> dead, byte[] original, String reason) {
        assertEquals(4096, dead.value().length);
        assertArrayEquals(Arrays.copyOf(original, 4096), dead.value());
        assertEquals(Integer.toString(original.length), header(dead, DeadLetterHeaders.VALUE_SIZE));
        assertEquals("true", header(dead, DeadLetterHeaders.VALUE_TRUNCATED));
        assertEquals(DeadLetterPayload.of(original, 1).sha256(), header(dead, DeadLetterHeaders.VALUE_SHA256));
        assertTrue(header(dead, "__connect.errors.exception.message").contains(reason), reason);
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Every user-visible file under the root, by relative path. */
    private static Map<String, byte[]> snapshot() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !root.relativize(p).startsWith(".state"))
                    .collect(Collectors.toMap(
                            p -> root.relativize(p).toString(),
                            p -> {
                                try {
                                    return Files.readAllBytes(p);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            },
                            (a, b) -> a,
                            TreeMap::new));
        }
    }
}
