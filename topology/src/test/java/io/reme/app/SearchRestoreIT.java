package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import io.reme.indexstore.MemoryIndexUpdater;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.topic.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The memory index is only a view of the memories topic: wiping the state directory and restoring
 * from the topic gives the same answers, and replaying the same records again changes nothing.
 */
@Tag("integration")
class SearchRestoreIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final List<String> QUERIES =
            List.of("trains", "deploy on fridays", "kyoto trip budget", "coordinator is not aware of this member");

    /** An instance whose data lives in {@code dir/name}; both tests' instances share the topics and the group. */
    private AppConfig config(String name) {
        return TestApps.config(
                broker.bootstrapServers(),
                dir.resolve(name),
                Map.of(AppConfig.PARTITIONS.name(), "2", AppConfig.STREAM_THREADS.name(), "1"));
    }

    private static List<String> answers(RemeApp app) throws Exception {
        List<String> all = new ArrayList<>();
        for (String query : QUERIES) {
            ApiClient.Response response =
                    ApiClient.send(app, "POST", "/v1/search", TestApps.ACME_KEY, Map.of("query", query, "k", 10));
            assertEquals(200, response.status(), response.text());
            JsonNode body = response.json();
            assertFalse(body.path("partial").asBoolean(), response.text());
            for (JsonNode hit : body.path("hits")) {
                all.add(query + " -> " + hit.path("id").asText() + " "
                        + hit.path("score").asText());
            }
        }
        return all;
    }

    /** Polls until at least {@code minHits} hits come back and two answers a second apart agree. */
    private static List<String> awaitAnswers(RemeApp app, int minHits) {
        AtomicReference<List<String>> previous = new AtomicReference<>(List.of());
        try {
            Awaitility.await("two answers a second apart that agree")
                    .atMost(Duration.ofSeconds(60))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        List<String> answers = answers(app);
                        boolean agree = answers.size() >= minHits && answers.equals(previous.get());
                        previous.set(answers);
                        return agree;
                    });
        } catch (ConditionTimeoutException e) {
            // The caller compares the last answers.
        }
        return previous.get();
    }

    private static void produce(List<MemoryRecord> records) throws Exception {
        MemoryPartitioning partitioning = new MemoryPartitioning(1);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (MemoryRecord record : records) {
                producer.send(new ProducerRecord<>(
                        TOPICS.memories(),
                        partitioning.partition("acme", record.id(), 2),
                        "acme/" + record.id(),
                        Json.MAPPER.writeValueAsBytes(record)));
            }
        }
    }

    /** Sixty notes of tenant acme, one updated, so a restore must apply them in order too. */
    private static List<MemoryRecord> records() {
        Instant t0 = Instant.parse("2026-11-28T10:00:00Z");
        String[] texts = {
            "Alice prefers trains over buses",
            "The orders service must not deploy on Fridays",
            "Bob's Kyoto trip budget is 4000 EUR",
            "Offset commit failed: The coordinator is not aware of this member",
            "Decision: use idempotent producers for payments",
            "Bob is vegetarian and his wife has a peanut allergy"
        };
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            records.add(new MemoryRecord(
                    "m" + i,
                    new MemoryRecord.Owner("acme", "alice", null),
                    MemoryType.PERSONAL,
                    texts[i % texts.length] + " (note " + i + ")",
                    new MemoryRecord.Times(t0, t0, t0.plusSeconds(i)),
                    Map.of(),
                    null,
                    MemoryRecord.Versions.FIRST,
                    null,
                    MemoryRecord.Vectors.NONE,
                    List.of()));
        }
        records.set(7, records.get(7).withText("Alice now prefers planes", t0.plusSeconds(100)));
        return records;
    }

    @Test
    void wipingTheStateAndRestoringFromTheTopicGivesTheSameAnswers() throws Exception {
        List<MemoryRecord> records = records();
        List<String> before;
        try (RemeApp app = RemeApp.start(config("app"))) {
            produce(records);
            // 4 queries, each matching about ten of the sixty notes.
            before = awaitAnswers(app, 36);
            // Replaying the very same records changes nothing.
            produce(records);
            List<String> answered = before;
            Awaitility.await("the replay changes no answer")
                    .during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> answers(app), answered::equals);
            assertEquals(before, awaitAnswers(app, before.size()));
        }
        Path state = dir.resolve("app").resolve("streams");
        try (Stream<Path> files = Files.walk(state)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        }
        assertFalse(Files.exists(state), "the state directory is gone");
        try (RemeApp app = RemeApp.start(config("app"))) {
            assertEquals(before, awaitAnswers(app, before.size()), "restored from the topic alone");
        }
    }

    /**
     * An index written by Lucene 9 (the fixture, by the service before Lucene 10) in place of the store's
     * index, checkpoints left as they were: the next start deletes it and restores the store from the
     * topic, without a manual step, and none of the old index's own documents survive.
     */
    @Test
    void anIndexWrittenByLucene9IsRebuiltFromTheTopic() throws Exception {
        List<MemoryRecord> records = records();
        List<String> before;
        try (RemeApp app = RemeApp.start(config("lucene9"))) {
            produce(records);
            before = awaitAnswers(app, 36);
        }
        Path state = dir.resolve("lucene9").resolve("streams");
        List<Path> indexes;
        try (Stream<Path> files = Files.walk(state)) {
            indexes = files.filter(path -> path.getFileName().toString().equals(MemoryIndexUpdater.STORE))
                    .toList();
        }
        assertEquals(2, indexes.size(), "one index per partition: " + indexes);
        for (Path index : indexes) {
            try (Stream<Path> files = Files.walk(index)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
            unpackLucene9Index(index);
        }
        try (RemeApp app = RemeApp.start(config("lucene9"))) {
            List<String> after = awaitAnswers(app, before.size());
            assertEquals(before, after, "rebuilt from the topic");
            assertFalse(
                    after.stream().anyMatch(hit -> hit.contains("ghost")), "the old index's own documents are gone");
        }
    }

    /** The index the service wrote with Lucene 9.12 on Java 17: three notes of acme, ids ghost0..ghost2. */
    private static void unpackLucene9Index(Path folder) throws IOException {
        Files.createDirectories(folder);
        try (InputStream in = SearchRestoreIT.class.getResourceAsStream("/lucene9-memory-index.zip");
                ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
                Files.copy(zip, folder.resolve(entry.getName()));
            }
        }
    }
}
