package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.erasure.Erasure;
import io.reme.topic.Topics;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A kill -9 of the instance the moment its erasure of a user first shows in Kafka: the erasure must be
 * recorded before anything is removed, so that after the restart it resumes on its own and its status
 * ends complete, with every memory and the session of the user gone and nobody else's touched. Before,
 * the API tombstoned memories one by one and only then recorded the erasure: killed mid-way, a few
 * memories were gone, the session was still served and the status answered 404.
 */
class ErasureCrashIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int MEMORIES = 120;

    @Test
    void anErasureKilledAsSoonAsItShowsResumesAfterTheRestartAndEndsComplete() throws Exception {
        Path config = dir.resolve("erasure-crash.properties");
        Files.writeString(config, "reme.embedding.provider=none\n");
        Path dataDir = dir.resolve("app");
        try (AppProcess first = CrashRestartIT.child(dataDir, config, dir.resolve("first.log"));
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            String url = first.awaitReady(Duration.ofSeconds(120));
            ConversationGenerator generator = new ConversationGenerator(5, 1, 500);
            TestKafka.send(producer, TOPICS.messages(), generator.session("acme", "uses", "ursula", 6, Instant.now()));
            TestKafka.send(producer, TOPICS.messages(), generator.session("acme", "bobs", "bob", 6, Instant.now()));
            ContextApi.awaitCounted(
                    () -> url, TestApps.ACME_KEY, Map.of("uses", 6, "bobs", 6), Duration.ofSeconds(60), () -> {});
            Set<String> ursulas = created(url, "ursula", MEMORIES);
            Set<String> bobs = created(url, "bob", 5);
            assertEquals(MEMORIES, ursulas.size());

            CompletableFuture<ApiClient.Response> erasing = CompletableFuture.supplyAsync(() ->
                    ApiClient.trySend(ApiClient.request("DELETE", url + "/v1/users/ursula", TestApps.ACME_KEY, null)));
            String seen = awaitFirstErasureEffect(Duration.ofSeconds(30));
            first.kill();
            assertEquals(
                    ApiClient.NO_ANSWER,
                    erasing.get().status(),
                    "the instance was killed before it answered (first seen: " + seen + ")");

            try (AppProcess second = CrashRestartIT.child(dataDir, config, dir.resolve("second.log"))) {
                String again = second.awaitReady(Duration.ofSeconds(180));
                JsonNode status = awaitComplete(again, Duration.ofSeconds(120));
                assertEquals(MEMORIES, status.path("removed").path("memories").asLong(), status::toString);
                assertEquals(1, status.path("removed").path("sessions").asLong(), status::toString);
                assertEquals(Set.of(), listed(again, "ursula"), "every memory of the user is gone");
                assertEquals(bobs, listed(again, "bob"), "and nobody else's");
                assertEquals(
                        404,
                        ApiClient.get(again + "/v1/sessions/uses/context", TestApps.ACME_KEY)
                                .status());
                assertEquals(
                        200,
                        ApiClient.get(again + "/v1/sessions/bobs/context", TestApps.ACME_KEY)
                                .status());
            }
        }
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

    /**
     * Waits for the first committed trace of the erasure in Kafka: an erasure request on {@code messages}
     * or a tombstone on {@code memories}, whichever comes first.
     */
    private static String awaitFirstErasureEffect(Duration timeout) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false);
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(TOPICS.messages(), TOPICS.memories())) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(20))) {
                    if (Erasure.isErasure(record.headers())) {
                        return "erasure request on " + record.topic();
                    }
                    if (record.topic().equals(TOPICS.memories()) && record.value() == null) {
                        return "memory tombstone " + record.key();
                    }
                }
            }
        }
        throw new AssertionError("the erasure never showed in Kafka within " + timeout);
    }

    private static JsonNode awaitComplete(String url, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ApiClient.Response last;
        do {
            last = ApiClient.trySend(
                    ApiClient.request("GET", url + "/v1/users/ursula/erasure", TestApps.ACME_KEY, null));
            if (last.status() == 200 && last.json().path("complete").asBoolean()) {
                return last.json();
            }
            Thread.sleep(250);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(
                "the erasure did not resume to completion; last status " + last.status() + " " + last.text());
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
