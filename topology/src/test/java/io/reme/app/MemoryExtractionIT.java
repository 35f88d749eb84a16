package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.OpenTelemetry;
import io.reme.api.memory.HttpMemoryLookup;
import io.reme.api.tenant.ApiKeys;
import io.reme.config.AppConfig;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.embedding.EmbeddingModel;
import io.reme.json.Json;
import io.reme.metrics.PipelineMetrics;
import io.reme.search.MemoryRecord;
import io.reme.tokens.TokenCounter;
import io.reme.worker.MemoryLookup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memories from conversations, end to end on one instance with the offline provider and the local
 * embedding model: quiet sessions are sent for extraction, the worker merges with what the index
 * holds, so a contradiction updates the memory it contradicts and a repeated statement adds
 * nothing; an edit over HTTP changes what retrieval and search return.
 */
@Tag("integration")
class MemoryExtractionIT extends WithBroker {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static void say(RemeApp app, String session, String text) {
        ApiClient.Response response = ApiClient.send(
                app,
                "POST",
                "/v1/messages",
                TestApps.ACME_KEY,
                List.of(
                        Map.of("session", session, "user", "alice", "role", "user", "content", text),
                        Map.of("session", session, "user", "alice", "role", "assistant", "content", "Noted.")));
        assertEquals(202, response.status(), response.text());
    }

    private static JsonNode personal(RemeApp app) {
        ApiClient.Response response = ApiClient.send(
                app, "GET", "/v1/memories?type=personal&sort=created&order=asc", TestApps.ACME_KEY, null);
        assertEquals(200, response.status(), response.text());
        return response.json().path("memories");
    }

    private static JsonNode await(RemeApp app, Predicate<JsonNode> done, String what) {
        AtomicReference<JsonNode> memories = new AtomicReference<>();
        Awaitility.await(what)
                .atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    memories.set(personal(app));
                    assertTrue(done.test(memories.get()), "memories: " + memories.get());
                });
        return memories.get();
    }

    private static List<String> contents(JsonNode memories) {
        List<String> contents = new ArrayList<>();
        memories.forEach(m -> contents.add(m.path("content").asText()));
        return contents;
    }

    private static boolean hasId(JsonNode hits, String id, String content) {
        for (JsonNode hit : hits) {
            if (hit.path("id").asText().equals(id) && hit.path("text").asText().equals(content)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void conversationsBecomeMemoriesThatStayCurrentAndEditable() throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "true");
        options.put(AppConfig.EMBEDDING.name(), "local");
        options.put(AppConfig.IDLE_AFTER.name(), "2s");
        options.put(AppConfig.STREAM_THREADS.name(), "1");
        try (RemeApp app = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("app"), options))) {
            say(app, "s1", "I like green tea.");
            JsonNode first = await(app, m -> m.size() == 1, "the preference is remembered");
            String id = first.get(0).path("id").asText();
            assertEquals("I like green tea.", first.get(0).path("content").asText());
            assertEquals("alice", first.get(0).path("target").asText());

            say(app, "s2", "I don't like green tea anymore.");
            JsonNode updated = await(
                    app,
                    m -> m.size() == 1 && m.get(0).path("version").asLong() == 2,
                    "the contradiction updates the memory");
            assertEquals(id, updated.get(0).path("id").asText(), "same memory, same id");
            assertEquals(
                    "I don't like green tea anymore.",
                    updated.get(0).path("content").asText());
            assertEquals(
                    "I like green tea.",
                    updated.get(0).path("history").get(0).path("content").asText());

            say(app, "s3", "My favourite city is Lisbon.");
            await(app, m -> m.size() == 2, "a new fact is added");
            say(app, "s4", "my favourite city is Lisbon!");
            say(app, "s5", "I prefer aisle seats.");
            JsonNode after = await(app, m -> m.size() == 3, "the repeat adds nothing, the new preference is added");
            assertEquals(
                    List.of("I don't like green tea anymore.", "My favourite city is Lisbon.", "I prefer aisle seats."),
                    contents(after));

            // Edit over HTTP: retrieval and search return the new content under the same id.
            ApiClient.Response edit = ApiClient.send(
                    app,
                    "PUT",
                    "/v1/memories/" + id,
                    TestApps.ACME_KEY,
                    Map.of("content", "Alice only drinks rooibos tea."));
            assertEquals(200, edit.status(), edit.text());
            JsonNode retrieved = ApiClient.send(
                            app,
                            "POST",
                            "/v1/memories/retrieve",
                            TestApps.ACME_KEY,
                            Map.of("query", "rooibos", "types", List.of("personal"), "k", 3))
                    .json();
            assertTrue(
                    hasId(retrieved.path("results").path("personal"), id, "Alice only drinks rooibos tea."),
                    retrieved.toString());
            assertFalse(retrieved.path("results").has("tool"), "only the types asked for");
            JsonNode searched = ApiClient.send(
                            app, "POST", "/v1/search", TestApps.ACME_KEY, Map.of("query", "rooibos", "k", 5))
                    .json();
            assertTrue(hasId(searched.path("hits"), id, "Alice only drinks rooibos tea."), searched.toString());
            JsonNode old = ApiClient.send(
                            app,
                            "POST",
                            "/v1/search",
                            TestApps.ACME_KEY,
                            Map.of("query", "anymore", "k", 5, "types", List.of("personal")))
                    .json();
            assertFalse(hasId(old.path("hits"), id, "I don't like green tea anymore."), "the old text is gone: " + old);
        }
    }

    @Test
    void theMemoryCountHoldsBackNewExtractedMemoriesButNotUpdates() throws Exception {
        String adminKey = "admin-key-0123456789abcdef";
        Map<String, String> options = new HashMap<>();
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "true");
        options.put(AppConfig.EMBEDDING.name(), "local");
        options.put(AppConfig.IDLE_AFTER.name(), "2s");
        options.put(AppConfig.STREAM_THREADS.name(), "1");
        options.put(AppConfig.ADMIN_KEY.name(), adminKey);
        options.put(AppConfig.APPLICATION_ID.name(), "reme-quota");
        options.put(AppConfig.TOPIC_PREFIX.name(), "quota.");
        AppConfig config = TestApps.config(broker.bootstrapServers(), dir.resolve("quota"), options);
        try (RemeApp app = RemeApp.start(config)) {
            ApiClient.Response created =
                    ApiClient.send(app, "POST", "/v1/admin/tenants", adminKey, Map.of("tenant", "acme"));
            assertTrue(created.status() == 200 || created.status() == 201, created.text());
            ApiClient.Response policy =
                    ApiClient.send(app, "PUT", "/v1/admin/tenants/acme/policy", adminKey, Map.of("maxMemories", 1));
            assertEquals(200, policy.status(), policy.text());

            say(app, "s1", "I like green tea.");
            String id = await(app, m -> m.size() == 1, "the first memory fits")
                    .get(0)
                    .path("id")
                    .asText();
            say(app, "s2", "I don't like green tea anymore.");
            JsonNode updated = await(
                    app,
                    m -> m.size() == 1 && m.get(0).path("version").asLong() == 2,
                    "an update at the count is written");
            assertEquals(id, updated.get(0).path("id").asText());

            say(app, "s3", "My favourite city is Lisbon.");
            List<ConsumerRecord<String, byte[]>> dead = TestKafka.readCommitted(
                    broker.bootstrapServers(), config.topics().dlq(), 1, DEADLINE);
            assertEquals(1, dead.size(), "the new memory is dead-lettered");
            assertEquals(
                    DlqReason.MEMORY_QUOTA.name(),
                    DeadLetterHeaders.read(dead.get(0).headers(), DeadLetterHeaders.REASON));
            assertEquals(
                    "My favourite city is Lisbon.",
                    Json.MAPPER
                            .readValue(dead.get(0).value(), MemoryRecord.class)
                            .text());
            assertEquals(1, personal(app).size(), "no memory past the count: " + personal(app));
        }
    }

    /** An app without embedded workers, with topics and application id of its own. */
    private static AppConfig separateConfig(String name, String embedding) {
        return TestApps.config(
                broker.bootstrapServers(),
                dir.resolve(name),
                Map.of(
                        AppConfig.EMBEDDING.name(),
                        embedding,
                        AppConfig.IDLE_AFTER.name(),
                        "2s",
                        AppConfig.STREAM_THREADS.name(),
                        "1",
                        AppConfig.APPLICATION_ID.name(),
                        "reme-" + name,
                        AppConfig.TOPIC_PREFIX.name(),
                        name + "."));
    }

    /** What the 'workers' command starts: the LLM workers and the embedder. */
    private static WorkerProcess separateWorkers(AppConfig config, MemoryLookup lookup, EmbeddingModel embeddings) {
        return WorkerProcess.start(
                config,
                broker.bootstrapServers(),
                TokenCounter.forEncoding(config.get(AppConfig.TOKEN_ENCODING), config.get(AppConfig.IMAGE_TOKENS)),
                PipelineMetrics.NONE,
                lookup,
                embeddings,
                OpenTelemetry.noop());
    }

    @Test
    void separateWorkersWithoutAnEmbeddingModelStillIndexMemories() throws Exception {
        AppConfig config = separateConfig("separate", "none");
        try (RemeApp app = RemeApp.start(config);
                WorkerProcess _ = separateWorkers(config, MemoryLookup.NONE, null)) {
            say(app, "s1", "I prefer window seats.");
            JsonNode memories = await(app, m -> m.size() == 1, "the preference reaches the index without vectors");
            assertEquals(
                    "I prefer window seats.", memories.get(0).path("content").asText());
            JsonNode searched = ApiClient.send(
                            app, "POST", "/v1/search", TestApps.ACME_KEY, Map.of("query", "window seats", "k", 5))
                    .json();
            assertTrue(
                    hasId(searched.path("hits"), memories.get(0).path("id").asText(), "I prefer window seats."),
                    searched.toString());
        }
    }

    @Test
    void separateWorkersMergeWithTheMemoriesTheAppFinds() throws Exception {
        AppConfig config = separateConfig("lookup", "local");
        try (RemeApp app = RemeApp.start(config);
                EmbeddingModel embeddings = Providers.embeddings(config);
                // As with reme.workers.search-url pointing at the app.
                WorkerProcess _ = separateWorkers(
                        config,
                        new HttpMemoryLookup(app.httpUrl(), ApiKeys.parse(config.get(AppConfig.API_KEYS))),
                        embeddings)) {
            say(app, "s1", "I like green tea.");
            String id = await(app, m -> m.size() == 1, "the preference is remembered")
                    .get(0)
                    .path("id")
                    .asText();
            say(app, "s2", "I don't like green tea anymore.");
            JsonNode updated = await(
                    app,
                    m -> m.size() == 1 && m.get(0).path("version").asLong() == 2,
                    "the contradiction updates the memory the app's search found");
            assertEquals(id, updated.get(0).path("id").asText());
            assertEquals(
                    "I don't like green tea anymore.",
                    updated.get(0).path("content").asText());
        }
    }
}
