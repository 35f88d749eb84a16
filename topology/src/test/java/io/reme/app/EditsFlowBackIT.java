package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import io.reme.diary.DiaryEdit;
import io.reme.json.Json;
import io.reme.workspace.DiaryFileWatcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memory is files: the application writes {@code MEMORY.md} through its in-process file sinks, a
 * person edits it by hand, and the edit becomes the document's next version, searchable through
 * {@code /v1/search}; the sink's own writes never come back as edits.
 */
@Tag("integration")
class EditsFlowBackIT extends WithBroker {
    private static final String MODEL_VERSION = "# Long-term memory\n\n- Alice prefers green tea in the afternoon.\n";
    private static final String HUMAN_FACT = "- Alice is on call the first week of December.\n";
    private static final String MODEL_FACT = "- Alice moved the orders topic to 12 partitions.\n";
    private static final String FACT = "- The staging Kafka cluster is called bluefin-42 and runs in Frankfurt.\n";

    private static JsonNode call(RemeApp app, String path, String body) {
        ApiClient.Response response = ApiClient.send(app, body == null ? "GET" : "POST", path, TestApps.ACME_KEY, body);
        return response.status() == 200 ? response.json() : null;
    }

    private static JsonNode await(String what, RemeApp app, String path, String body, Predicate<JsonNode> done) {
        AtomicReference<JsonNode> last = new AtomicReference<>();
        Awaitility.await(what)
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    last.set(call(app, path, body));
                    assertTrue(last.get() != null && done.test(last.get()), "last answer " + last.get());
                });
        return last.get();
    }

    private static boolean mentions(JsonNode search, String text) {
        for (JsonNode hit : search.path("hits")) {
            if (hit.path("text").asText().contains(text)
                    && hit.path("metadata").path("path").asText().equals("MEMORY.md")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aHandEditOfMemoryMdIsPublishedAndFoundBySearch() throws Exception {
        AppConfig config = TestApps.config(
                broker.bootstrapServers(),
                dir.resolve("app"),
                Map.of(
                        AppConfig.PARTITIONS.name(), "2",
                        AppConfig.STREAM_THREADS.name(), "1",
                        AppConfig.WORKERS_EMBEDDED.name(), "true",
                        AppConfig.EMBEDDING.name(), "local",
                        AppConfig.SINKS_EMBEDDED.name(), "true",
                        // Slow enough that the model edit in the race below lands before the person's save is
                        // published.
                        AppConfig.WATCH_INTERVAL.name(), "2s"));
        try (RemeApp app = RemeApp.start(config);
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            // The model's version 1, submitted to the single writer as a worker does.
            DiaryEdit model = new DiaryEdit(
                    "model-1", "acme", "alice", "MEMORY", 0, MODEL_VERSION, "req-1", Instant.now(), List.of());
            producer.send(signed(config.topics().diaryEdits(), model)).get();

            Path file = config.workspaceDir().resolve("acme/alice/MEMORY.md");
            Awaitility.await("the sink writes MEMORY.md")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Files.exists(file) && Files.readString(file).equals(MODEL_VERSION));
            String question = "{\"query\":\"what is the staging kafka cluster called\",\"k\":5}";
            await(
                    "the model's version indexed",
                    app,
                    "/v1/search",
                    "{\"query\":\"green tea\",\"k\":5}",
                    s -> mentions(s, "green tea"));
            assertTrue(!mentions(call(app, "/v1/search", question), "bluefin-42"), "not known before the edit");
            versionStays(app, 1, "the sink's own write did not come back as an edit");

            Files.writeString(file, MODEL_VERSION + FACT);

            JsonNode found =
                    await("the hand edit in search", app, "/v1/search", question, s -> mentions(s, "bluefin-42"));
            assertTrue(mentions(found, "bluefin-42"));
            JsonNode document = call(app, "/v1/diary/alice/MEMORY", null);
            assertEquals(2, document.path("version").asLong());
            assertEquals(DiaryFileWatcher.AUTHOR, document.path("author").asText());
            assertEquals(MODEL_VERSION + FACT, document.path("content").asText());
            versionStays(app, 2, "writing the published edit back to the file is not another edit");
            assertEquals(MODEL_VERSION + FACT, Files.readString(file));

            // A race: the person saves again while a model edit of version 2 gets in first.
            String human = MODEL_VERSION + FACT + HUMAN_FACT;
            Files.writeString(file, human);
            DiaryEdit racing = new DiaryEdit(
                    "model-3",
                    "acme",
                    "alice",
                    "MEMORY",
                    2,
                    MODEL_VERSION + FACT + MODEL_FACT,
                    "req-3",
                    Instant.now(),
                    List.of());
            producer.send(signed(config.topics().diaryEdits(), racing)).get();
            String merged =
                    human + "\n<!-- added in version 3 while this file was being edited by hand -->\n" + MODEL_FACT;
            JsonNode both = await(
                    "the merge of both edits",
                    app,
                    "/v1/diary/alice/MEMORY",
                    null,
                    d -> d.path("version").asLong() == 4);
            assertEquals(merged, both.path("content").asText(), "neither the person's line nor the model's is lost");
            Awaitility.await("the merge written back")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertEquals(merged, Files.readString(file)));
        }
    }

    /** An edit as a worker submits it: signed with the deployment's request secret. */
    private static ProducerRecord<byte[], byte[]> signed(String topic, DiaryEdit edit) throws Exception {
        byte[] key = edit.key().key().getBytes(StandardCharsets.UTF_8);
        byte[] value = Json.MAPPER.writeValueAsBytes(edit);
        return TestKafka.signedEdit(topic, key, value);
    }

    /** MEMORY.md stays at {@code version} for 4.5 s: nothing is published as another edit. */
    private static void versionStays(RemeApp app, long version, String what) {
        Awaitility.await(what)
                .during(Duration.ofMillis(4500))
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertEquals(
                        version,
                        call(app, "/v1/diary/alice/MEMORY", null)
                                .path("version")
                                .asLong(),
                        what));
    }
}
