package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.diary.DiaryEdit;
import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.session.ArchivedMessage;
import io.reme.topic.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code DELETE /v1/users/{user}} and {@code DELETE /v1/tenant} on a running instance with its file
 * sinks: the user's sessions, memories, diaries, {@code MEMORY.md}, dialog files and stored tool
 * outputs go from every API, the working directory and the compacted topics (tombstones), the answer
 * counts what went, and nothing of another user or another tenant is touched.
 */
@Tag("integration")
class ErasureIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final Instant START = Instant.parse("2026-03-02T09:00:00Z");

    @Test
    void aUserAndThenTheTenantAreErasedEverywhereAndOnlyThey() throws Exception {
        AppConfig config = TestApps.config(
                broker.bootstrapServers(),
                dir.resolve("app"),
                Map.of(
                        AppConfig.STREAM_THREADS.name(), "1",
                        AppConfig.SINKS_EMBEDDED.name(), "true",
                        AppConfig.TOOL_RECENT_BYTES.name(), "2000",
                        AppConfig.TOOL_OLD_BYTES.name(), "1000"));
        Path workspace = config.workspaceDir();
        try (RemeApp app = RemeApp.start(config);
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            // Every tool output is 6 KB, over the 2 KB limit: each is stored apart (tool-results, tool_result/).
            ConversationGenerator generator = new ConversationGenerator(11, 1, 6_000);
            Map<String, Integer> acmeSessions = Map.of("a1", 8, "a2", 8, "b1", 8);
            send(producer, generator.session("acme", "a1", "alice", 8, START));
            send(producer, generator.session("acme", "a2", "alice", 8, START));
            send(producer, generator.session("acme", "b1", "bob", 8, START));
            send(producer, generator.session("globex", "a1", "alice", 8, START));
            ContextApi.awaitCounted(app::httpUrl, TestApps.ACME_KEY, acmeSessions, Duration.ofSeconds(60), () -> {});
            ContextApi.awaitCounted(
                    app::httpUrl, TestApps.GLOBEX_KEY, Map.of("a1", 8), Duration.ofSeconds(60), () -> {});

            seedFiles(producer);

            String aliceMemory = createdMemory(app, TestApps.ACME_KEY, "alice", "Alice likes window seats");
            String bobMemory = createdMemory(app, TestApps.ACME_KEY, "bob", "Bob likes aisle seats");
            String globexMemory = createdMemory(app, TestApps.GLOBEX_KEY, "alice", "Globex Alice likes trains");

            Path aliceDir = workspace.resolve("acme/alice");
            Path bobDir = workspace.resolve("acme/bob");
            Path acmeTools = workspace.resolve("acme/tool_result");
            await(
                    "files written",
                    Duration.ofSeconds(60),
                    () -> Files.exists(aliceDir.resolve("MEMORY.md"))
                            && Files.exists(aliceDir.resolve("memory/2026-03-02.md"))
                            && Files.exists(aliceDir.resolve("dialog/2026-03-02.jsonl"))
                            && Files.exists(bobDir.resolve("MEMORY.md"))
                            && Files.exists(workspace.resolve("globex/alice/MEMORY.md"))
                            && files(acmeTools).size() == 6);
            Set<String> toolFilesBefore = files(acmeTools);

            // The index commits every 10 s: once it has, the memory's text is in its segment files.
            awaitOnDisk(config.dataDir().resolve("streams"), "Alice likes window seats");
            // Erase alice of acme.
            ApiClient.Response erased = ApiClient.send(app, "DELETE", "/v1/users/alice", TestApps.ACME_KEY, null);
            assertEquals(200, erased.status(), erased.text());
            JsonNode answer = erased.json();
            assertTrue(answer.path("complete").asBoolean(), answer.toString());
            JsonNode removed = answer.path("removed");
            assertEquals(2, removed.path("sessions").asInt(), answer.toString());
            assertEquals(16, removed.path("messages").asInt());
            assertEquals(2, removed.path("documents").asInt());
            assertEquals(1, removed.path("memories").asInt());
            assertEquals(4, removed.path("toolOutputs").asInt(), "the four stored outputs of the live messages");
            assertTrue(answer.path("retained").has("reme.dialog"), "says what stays in append-only topics");
            assertEquals("/v1/users/alice/erasure", answer.path("status").asText());
            assertTrue(answer.path("memoriesExpunged").asBoolean(), answer.toString());
            // Deleted documents stay in Lucene's segment files until a merge rewrites them: the erasure merged.
            Path leftover = fileWith(config.dataDir().resolve("streams"), "Alice likes window seats");
            assertEquals(null, leftover);

            // No API serves alice's content any more; bob and globex's alice are untouched.
            for (String session : List.of("a1", "a2")) {
                assertEquals(
                        404,
                        ContextApi.get(app.httpUrl(), TestApps.ACME_KEY, session)
                                .status());
            }
            assertEquals(
                    200, ContextApi.get(app.httpUrl(), TestApps.ACME_KEY, "b1").status());
            assertEquals(
                    200,
                    ContextApi.get(app.httpUrl(), TestApps.GLOBEX_KEY, "a1").status());
            assertEquals(
                    404,
                    ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, "alice", "MEMORY")
                            .status());
            assertEquals(
                    404,
                    ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, "alice", "2026-03-02")
                            .status());
            assertEquals(
                    200,
                    ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, "bob", "MEMORY")
                            .status());
            assertEquals(
                    200,
                    ContextApi.diary(app.httpUrl(), TestApps.GLOBEX_KEY, "alice", "MEMORY")
                            .status());
            assertEquals(404, memory(app, TestApps.ACME_KEY, aliceMemory).status());
            assertEquals(200, memory(app, TestApps.ACME_KEY, bobMemory).status());
            assertEquals(200, memory(app, TestApps.GLOBEX_KEY, globexMemory).status());
            JsonNode sessions = ApiClient.send(app, "GET", "/v1/sessions", TestApps.ACME_KEY, null)
                    .json();
            assertEquals(1, sessions.path("sessions").size(), sessions.toString());
            assertEquals("b1", sessions.path("sessions").get(0).path("session").asText());
            JsonNode search = ApiClient.send(
                            app, "POST", "/v1/search", TestApps.ACME_KEY, Map.of("query", "window seats", "k", 10))
                    .json();
            assertFalse(search.toString().contains("Alice likes window seats"), search.toString());

            // The files go too (the sinks apply the tombstones and the marker), bob's stay.
            await("alice's folder deleted", Duration.ofSeconds(60), () -> !Files.exists(aliceDir));
            await(
                    "alice's tool outputs deleted",
                    Duration.ofSeconds(60),
                    () -> files(acmeTools).size() == 2);
            assertTrue(Files.exists(bobDir.resolve("MEMORY.md")));
            assertTrue(Files.exists(workspace.resolve("globex/alice/MEMORY.md")));
            String bobContext = ContextApi.wholeWindow(app.httpUrl(), TestApps.ACME_KEY, "b1")
                    .body()
                    .toString();
            for (String file : files(acmeTools)) {
                assertTrue(bobContext.contains(file), "the outputs left are bob's: " + file);
                assertTrue(toolFilesBefore.contains(file));
            }

            assertTombstoned(aliceMemory, bobMemory);

            ApiClient.Response status = ApiClient.send(app, "GET", "/v1/users/alice/erasure", TestApps.ACME_KEY, null);
            assertEquals(200, status.status());
            assertEquals(answer.path("erasureId"), status.json().path("erasureId"));
            assertTrue(status.json().path("complete").asBoolean());
            assertEquals(
                    404,
                    ApiClient.send(app, "GET", "/v1/users/carol/erasure", TestApps.ACME_KEY, null)
                            .status());
            assertEquals(
                    400,
                    ApiClient.send(app, "DELETE", "/v1/users/-bad", TestApps.ACME_KEY, null)
                            .status());

            // The whole tenant: only with the tenant's own name as confirmation.
            assertEquals(
                    400,
                    ApiClient.send(app, "DELETE", "/v1/tenant", TestApps.ACME_KEY, null)
                            .status());
            assertEquals(
                    400,
                    ApiClient.send(app, "DELETE", "/v1/tenant", TestApps.ACME_KEY, Map.of("confirm", "globex"))
                            .status());
            ApiClient.Response tenant =
                    ApiClient.send(app, "DELETE", "/v1/tenant", TestApps.ACME_KEY, Map.of("confirm", "acme"));
            assertEquals(200, tenant.status(), tenant.text());
            assertEquals(1, tenant.json().path("removed").path("sessions").asInt());
            assertEquals(1, tenant.json().path("removed").path("documents").asInt());
            assertEquals(1, tenant.json().path("removed").path("memories").asInt());
            assertEquals(
                    404, ContextApi.get(app.httpUrl(), TestApps.ACME_KEY, "b1").status());
            assertEquals(404, memory(app, TestApps.ACME_KEY, bobMemory).status());
            assertEquals(
                    404,
                    ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, "bob", "MEMORY")
                            .status());
            assertEquals(
                    0,
                    ApiClient.send(app, "GET", "/v1/sessions", TestApps.ACME_KEY, null)
                            .json()
                            .path("sessions")
                            .size());
            await("acme's folder deleted", Duration.ofSeconds(60), () -> !Files.exists(workspace.resolve("acme")));
            assertEquals(
                    200,
                    ContextApi.get(app.httpUrl(), TestApps.GLOBEX_KEY, "a1").status());
            assertEquals(200, memory(app, TestApps.GLOBEX_KEY, globexMemory).status());
            assertTrue(Files.exists(workspace.resolve("globex/alice/MEMORY.md")));
            assertEquals(
                    200,
                    ApiClient.send(app, "GET", "/v1/tenant/erasure", TestApps.ACME_KEY, null)
                            .status());
        }
    }

    /** Diaries and MEMORY.md of alice and bob of acme and of globex's alice, and a dialog file of acme's alice. */
    private static void seedFiles(KafkaProducer<byte[], byte[]> producer) throws Exception {
        for (String[] doc : new String[][] {
            {"acme", "alice", "MEMORY"},
            {"acme", "alice", "2026-03-02"},
            {"acme", "bob", "MEMORY"},
            {"globex", "alice", "MEMORY"}
        }) {
            DiaryEdit edit = new DiaryEdit(
                    "e-" + String.join("-", doc),
                    doc[0],
                    doc[1],
                    doc[2],
                    0,
                    "# Notes of " + doc[1] + "\n- likes tea\n",
                    "test",
                    Instant.now(),
                    List.of());
            producer.send(TestKafka.signedEdit(
                            TOPICS.diaryEdits(),
                            String.join("/", doc).getBytes(StandardCharsets.UTF_8),
                            Json.MAPPER.writeValueAsBytes(edit)))
                    .get();
        }
        // A dialog file of alice's, as the dialog sink writes it from an archived message.
        Message said = new Message(
                "acme", "a1", "alice", "old-1", Role.USER, null, START, List.of(new Block.Text("my old secret")));
        producer.send(new ProducerRecord<>(
                        TOPICS.dialog(),
                        "acme/a1".getBytes(StandardCharsets.UTF_8),
                        Json.MAPPER.writeValueAsBytes(
                                new ArchivedMessage("acme", "a1", "alice", "2026-03-02", 0, null, said, null))))
                .get();
    }

    /** Compacted topics: the latest record of each erased key is a tombstone; bob's stay. */
    private static void assertTombstoned(String aliceMemory, String bobMemory) throws Exception {
        Map<String, byte[]> diary = latest(TOPICS.diary());
        assertTrue(diary.containsKey("acme/alice/MEMORY"));
        assertNull(diary.get("acme/alice/MEMORY"), "MEMORY.md tombstoned");
        assertNull(diary.get("acme/alice/2026-03-02"), "the diary tombstoned");
        assertTrue(diary.get("acme/bob/MEMORY") != null);
        Map<String, byte[]> memories = latest(TOPICS.memories());
        assertTrue(memories.containsKey("acme/" + aliceMemory));
        assertNull(memories.get("acme/" + aliceMemory), "the memory tombstoned");
        assertTrue(memories.get("acme/" + bobMemory) != null);
        Map<String, byte[]> tools = latest(TOPICS.toolResults());
        long liveAcmeOutputs = tools.entrySet().stream()
                .filter(e -> e.getKey().startsWith("acme/") && e.getValue() != null)
                .count();
        assertEquals(2, liveAcmeOutputs, "only bob's outputs are left on tool-results");
    }

    private static void awaitOnDisk(Path root, String text) throws InterruptedException {
        await("'" + text + "' committed to a file", Duration.ofSeconds(60), () -> {
            try {
                return fileWith(root, text) != null;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /**
     * A file under {@code root} holding {@code text} as bytes, or null. The index keeps writing, merging and
     * deleting its files while this looks: a file or folder gone between its listing and its reading is passed
     * over (a walk that stopped on it failed one run of many on a loaded machine).
     */
    private static Path fileWith(Path root, String text) throws IOException {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        Path[] found = {null};
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (!attributes.isRegularFile()) {
                    return FileVisitResult.CONTINUE;
                }
                byte[] bytes;
                try {
                    bytes = Files.readAllBytes(file);
                } catch (NoSuchFileException gone) {
                    return FileVisitResult.CONTINUE;
                }
                for (int i = 0; i + needle.length <= bytes.length; i++) {
                    if (Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
                        found[0] = file;
                        return FileVisitResult.TERMINATE;
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException failure) throws IOException {
                if (failure instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw failure;
            }
        });
        return found[0];
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, List<Envelope> envelopes) {
        TestKafka.send(producer, TOPICS.messages(), envelopes);
    }

    private static String createdMemory(RemeApp app, String key, String user, String content) {
        ApiClient.Response created = ApiClient.send(
                app, "POST", "/v1/memories", key, Map.of("type", "personal", "user", user, "content", content));
        assertEquals(201, created.status(), created.text());
        return created.json().path("id").asText();
    }

    private static ApiClient.Response memory(RemeApp app, String key, String id) {
        return ApiClient.send(app, "GET", "/v1/memories/" + id, key, null);
    }

    /** The names of the files in a folder; none when it does not exist. */
    private static Set<String> files(Path dir) {
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString().replace(".txt", "")).collect(Collectors.toSet());
        } catch (IOException e) {
            return Set.of();
        }
    }

    /** The last value of every key of a topic as committed (null: a tombstone). */
    private static Map<String, byte[]> latest(String topic) {
        Map<String, byte[]> latest = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record :
                TestKafka.readCommitted(broker.bootstrapServers(), topic, 1, Duration.ofSeconds(30))) {
            latest.put(record.key(), record.value());
        }
        return latest;
    }

    private static void await(String what, Duration timeout, BooleanSupplier done) {
        Awaitility.await(what)
                .atMost(timeout)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100))
                .until(done::getAsBoolean);
    }
}
