package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.topic.Topics;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory index survives a SIGKILL under exactly-once: the restarted instance opens each task's
 * Lucene index at its last commit point (documents in it, not an empty index to rebuild), replays only
 * the records after it, and then lists exactly the memories the topic holds, updates and deletes
 * included, each once.
 */
@Tag("integration")
class MemoryIndexCrashIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryIndexCrashIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    /** The children's partition count (CrashRestartIT.child): acme's memories in every partition. */
    private static final int BUCKETS = 4;

    private static final Pattern OPENED = Pattern.compile("memory index opened task=(\\S+) documents=(\\d+)");

    @Test
    void aKilledInstanceReopensItsIndexesAndReplaysOnlyTheTail() throws Exception {
        Path config = dir.resolve("index-crash.properties");
        Files.writeString(config, "reme.embedding.provider=none\nreme.search.tenant-buckets=" + BUCKETS + "\n");
        Path data = dir.resolve("index-crash");
        Map<String, String> expected = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            try (AppProcess first = CrashRestartIT.child(data, config, dir.resolve("index-crash-1.log"))) {
                String url = first.awaitReady(Duration.ofSeconds(120));
                for (int i = 0; i < 600; i++) {
                    put(producer, expected, "m" + i, "the first note " + i + " about the harbour");
                }
                awaitListed(url, expected, first);
                // Past the index's commit interval: every task's Lucene has a commit point with these in it.
                // A pause, not a wait: past the index commit interval, which nothing outside the process shows.
                Thread.sleep(12_000);
                // The tail: updates, deletes and new ones, applied but not yet committed to Lucene when killed.
                for (int i = 0; i < 200; i++) {
                    if (i % 5 == 0) {
                        delete(producer, expected, "m" + i);
                    } else {
                        put(producer, expected, "m" + (i * 3), "the second note " + i + " about the harbour");
                    }
                }
                awaitListed(url, expected, first);
                first.kill();
            }
            try (AppProcess again = CrashRestartIT.child(data, config, dir.resolve("index-crash-2.log"))) {
                String url = again.awaitReady(Duration.ofSeconds(120));
                awaitListed(url, expected, again);
                String log = Files.readString(dir.resolve("index-crash-2.log"));
                List<String> indexLines = log.lines()
                        .filter(line -> line.contains("memory index") || line.contains("memory-index"))
                        .toList();
                assertFalse(
                        log.contains("State store memory-index did not find checkpoint offsets"),
                        "no index was taken for corrupted and wiped: " + String.join("\n", indexLines));
                Map<String, Long> opened = new HashMap<>();
                Matcher matcher = OPENED.matcher(log);
                while (matcher.find()) {
                    long documents = Long.parseLong(matcher.group(2));
                    Long first = opened.putIfAbsent(matcher.group(1), documents);
                    // Streams opens a store again when it retries a task's start; a task taken for corrupted
                    // (any store of it without a checkpoint under exactly-once) is wiped and reopened empty.
                    assertTrue(
                            first == null || documents >= first,
                            "task " + matcher.group(1) + " reopened its index with " + documents + " documents after "
                                    + first + ": wiped\n" + String.join("\n", indexLines));
                }
                LOG.info("indexes as the restart first opened them: {}", opened);
                assertEquals(BUCKETS, opened.size(), "each task's index opened: " + opened);
                // Every commit point after the first batch holds its 600, less at most the tail's 40 deletes.
                long kept = opened.values().stream().mapToLong(Long::longValue).sum();
                assertTrue(kept >= 560, "the indexes reopened with what they had committed, not empty: " + opened);
            }
        }
    }

    private static void put(
            KafkaProducer<byte[], byte[]> producer, Map<String, String> expected, String id, String text)
            throws Exception {
        Instant at = Instant.parse("2026-12-02T10:00:00Z");
        MemoryRecord record = MemoryRecord.of(id, "acme", "alice", null, MemoryType.PERSONAL, text, at);
        send(producer, id, Json.MAPPER.writeValueAsBytes(record));
        expected.put(id, text);
    }

    private static void delete(KafkaProducer<byte[], byte[]> producer, Map<String, String> expected, String id)
            throws Exception {
        send(producer, id, null);
        expected.remove(id);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String id, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(
                        TOPICS.memories(),
                        new MemoryPartitioning(BUCKETS).partition("acme", id, BUCKETS),
                        ("acme/" + id).getBytes(StandardCharsets.UTF_8),
                        value))
                .get();
    }

    /** Until acme's listing, page by page, is complete and holds exactly {@code expected} (id to text), each once. */
    private static void awaitListed(String url, Map<String, String> expected, AppProcess app) {
        Awaitility.await("the listing holds exactly what was produced")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .failFast("the instance died", () -> !app.isAlive())
                .until(() -> expected.equals(listed(url)));
    }

    /** Acme's memories as id to text, or null while the listing is partial or an id comes twice. */
    private static Map<String, String> listed(String url) throws Exception {
        Map<String, String> found = new TreeMap<>();
        List<String> ids = new ArrayList<>();
        String cursor = null;
        do {
            String query = "?limit=100"
                    + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            HttpResponse<String> response =
                    ApiClient.raw(HttpRequest.newBuilder(URI.create(url + "/v1/memories" + query))
                            .header("Authorization", "Bearer " + TestApps.ACME_KEY)
                            .build());
            if (response.statusCode() != 200) {
                return null;
            }
            JsonNode page = Json.MAPPER.readTree(response.body());
            if (page.path("partial").asBoolean()) {
                return null;
            }
            for (JsonNode memory : page.path("memories")) {
                ids.add(memory.path("id").asText());
                found.put(memory.path("id").asText(), memory.path("content").asText());
            }
            cursor = page.path("nextCursor").isTextual()
                    ? page.path("nextCursor").asText()
                    : null;
        } while (cursor != null);
        return ids.size() == found.size() ? found : null;
    }
}
