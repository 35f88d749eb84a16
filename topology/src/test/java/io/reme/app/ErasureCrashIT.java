package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.diary.EditSignature;
import io.reme.erasure.Erasure;
import io.reme.llm.RequestSecret;
import io.reme.topic.Topics;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An erasure whose instance died the moment it was recorded: the request is on every partition of
 * {@code messages}, {@code diary.edits} and {@code memories} (as the API writes it, in one transaction)
 * and nothing of it was carried out. After the restart the erasure must resume on its own and its
 * status end complete, with every memory and the session of the user gone and nobody else's touched.
 * Before, the API tombstoned the memories itself, one by one, and recorded the erasure only after:
 * killed 329 ms into an erasure, 9 of 301 memories were gone, the session was still served and the
 * status answered 404; and a request on the topics alone erased no memory at all.
 */
@Tag("integration")
class ErasureCrashIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int MEMORIES = 120;

    @Test
    void anErasureRecordedJustBeforeAKillResumesAfterTheRestartAndEndsComplete() throws Exception {
        Path config = dir.resolve("erasure-crash.properties");
        Files.writeString(config, "reme.embedding.provider=none\n");
        Path dataDir = dir.resolve("app");
        Set<String> bobs;
        try (AppProcess first = CrashRestartIT.child(dataDir, config, dir.resolve("first.log"));
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            String url = first.awaitReady(Duration.ofSeconds(120));
            ConversationGenerator generator = new ConversationGenerator(5, 1, 500);
            TestKafka.send(producer, TOPICS.messages(), generator.session("acme", "uses", "ursula", 6, Instant.now()));
            TestKafka.send(producer, TOPICS.messages(), generator.session("acme", "bobs", "bob", 6, Instant.now()));
            ContextApi.awaitCounted(
                    () -> url, TestApps.ACME_KEY, Map.of("uses", 6, "bobs", 6), Duration.ofSeconds(60), () -> {});
            assertEquals(MEMORIES, created(url, "ursula", MEMORIES).size());
            bobs = created(url, "bob", 5);
            first.kill();
        }
        String erasureId = recordErasure("acme", "ursula");

        try (AppProcess second = CrashRestartIT.child(dataDir, config, dir.resolve("second.log"))) {
            String url = second.awaitReady(Duration.ofSeconds(180));
            JsonNode status = awaitComplete(url, Duration.ofSeconds(120));
            assertEquals(erasureId, status.path("erasureId").asText(), status::toString);
            assertEquals(MEMORIES, status.path("removed").path("memories").asLong(), status::toString);
            assertEquals(1, status.path("removed").path("sessions").asLong(), status::toString);
            assertTrue(status.path("memoriesExpunged").asBoolean(), status::toString);
            assertEquals(Set.of(), listed(url, "ursula"), "every memory of the user is gone");
            assertEquals(bobs, listed(url, "bob"), "and nobody else's");
            assertEquals(
                    404,
                    ApiClient.get(url + "/v1/sessions/uses/context", TestApps.ACME_KEY)
                            .status());
            assertEquals(
                    200,
                    ApiClient.get(url + "/v1/sessions/bobs/context", TestApps.ACME_KEY)
                            .status());
        }
    }

    /**
     * The erasure request as the API records it: signed, on every partition of the three topics, in one
     * transaction. Its id.
     */
    private static String recordErasure(String tenant, String user) {
        Erasure erasure = Erasure.ofUser(UUID.randomUUID().toString(), tenant, user, Instant.now(), 0);
        byte[] value = erasure.toJson();
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "erasure-crash-it");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (String topic : List.of(TOPICS.messages(), TOPICS.diaryEdits(), TOPICS.memories())) {
                byte[] key = (topic.equals(TOPICS.memories()) ? erasure.memoriesKey() : erasure.key())
                        .getBytes(StandardCharsets.UTF_8);
                for (int partition = 0;
                        partition < producer.partitionsFor(topic).size();
                        partition++) {
                    RecordHeaders headers = new RecordHeaders();
                    headers.add(Erasure.HEADER, erasure.erasureId().getBytes(StandardCharsets.UTF_8));
                    headers.add(EditSignature.header(RequestSecret.of(TestApps.REQUEST_SECRET), key, value));
                    producer.send(new ProducerRecord<>(topic, partition, key, value, headers));
                }
            }
            producer.commitTransaction();
        }
        return erasure.erasureId();
    }

    /** Creates {@code count} memories of {@code user} over HTTP, four at a time; their ids. */
    private static Set<String> created(String url, String user, int count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String content = user + " remembers fact number " + i;
                ids.add(pool.submit(() -> {
                    ApiClient.Response answer = ApiClient.post(
                            url + "/v1/memories",
                            TestApps.ACME_KEY,
                            Map.of("type", "personal", "user", user, "content", content));
                    assertEquals(201, answer.status(), answer.text());
                    return answer.json().path("id").asText();
                }));
            }
            Set<String> out = new TreeSet<>();
            for (Future<String> id : ids) {
                out.add(id.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static JsonNode awaitComplete(String url, Duration timeout) {
        AtomicReference<ApiClient.Response> last = new AtomicReference<>();
        Awaitility.await("the erasure resumed to completion")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .until(
                        () -> {
                            ApiClient.Response answer = ApiClient.trySend(ApiClient.request(
                                    "GET", url + "/v1/users/ursula/erasure", TestApps.ACME_KEY, null));
                            last.set(answer);
                            return answer;
                        },
                        answer -> answer.status() == 200
                                && answer.json().path("complete").asBoolean());
        return last.get().json();
    }

    private static Set<String> listed(String url, String user) {
        ApiClient.Response page =
                ApiClient.send(HttpRequest.newBuilder(URI.create(url + "/v1/memories?user=" + user + "&limit=500"))
                        .header("Authorization", "Bearer " + TestApps.ACME_KEY)
                        .timeout(Duration.ofSeconds(30))
                        .build());
        assertEquals(200, page.status(), page.text());
        assertFalse(page.json().path("partial").asBoolean(), page::text);
        Set<String> ids = new TreeSet<>();
        page.json().path("memories").forEach(m -> ids.add(m.path("id").asText()));
        return ids;
    }
}
