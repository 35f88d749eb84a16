package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.config.AppConfig;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
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
 * Memory search on two instances: memories of several tenants spread over the partitions (by
 * tenant); a search sent to either instance gives the same hits, only the caller's tenant's, and an
 * instance going away makes answers partial or moves them, never wrong. With tenant buckets a
 * tenant's memories lie on several partitions, and a search merges all of them on either instance.
 */
@Tag("integration")
class SearchIT extends WithBroker {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int TENANTS = 8;
    private static final int PARTITIONS = 4;
    private static final Topics BUCKETED = new Topics("bucketed.");

    private static String key(int tenant) {
        return "tenant" + tenant + "-key-0123456789abcdef";
    }

    private static AppConfig config(String name) {
        StringJoiner keys = new StringJoiner(",");
        for (int t = 0; t < TENANTS; t++) {
            keys.add("t" + t + ":" + key(t));
        }
        return TestApps.config(
                broker.bootstrapServers(),
                dir.resolve(name),
                Map.of(
                        AppConfig.API_KEYS.name(),
                        keys.toString(),
                        AppConfig.PARTITIONS.name(),
                        Integer.toString(PARTITIONS),
                        AppConfig.STREAM_THREADS.name(),
                        "1",
                        AppConfig.EMBEDDING.name(),
                        "none"));
    }

    /** Apps of their own (application id, topics) with a tenant's memories hashed over {@code buckets} buckets. */
    private static AppConfig bucketedConfig(String name, int buckets) {
        Map<String, String> options = new HashMap<>(Map.of(
                AppConfig.BOOTSTRAP_SERVERS.name(),
                broker.bootstrapServers(),
                AppConfig.DATA_DIR.name(),
                dir.resolve(name).toString(),
                AppConfig.HTTP_PORT.name(),
                "0",
                AppConfig.API_KEYS.name(),
                "t0:" + key(0) + ",t1:" + key(1),
                AppConfig.APPLICATION_ID.name(),
                "reme-bucketed",
                AppConfig.TOPIC_PREFIX.name(),
                BUCKETED.prefix(),
                AppConfig.PARTITIONS.name(),
                Integer.toString(PARTITIONS),
                AppConfig.STREAM_THREADS.name(),
                "1",
                AppConfig.MEMORY_BUCKETS.name(),
                Integer.toString(buckets),
                AppConfig.EMBEDDING.name(),
                "none"));
        options.put(AppConfig.REQUEST_SECRET.name(), TestApps.REQUEST_SECRET);
        return AppConfig.of(options);
    }

    /** Searches the tenant's memories for "trains". */
    private static JsonNode search(RemeApp app, int tenant, int k) throws Exception {
        ApiClient.Response response =
                ApiClient.send(app, "POST", "/v1/search", key(tenant), "{\"query\":\"trains\",\"k\":" + k + "}");
        assertEquals(200, response.status(), response.text());
        return response.json();
    }

    private static Set<String> ids(JsonNode answer) {
        Set<String> ids = new HashSet<>();
        answer.path("hits").forEach(hit -> ids.add(hit.path("id").asText()));
        return ids;
    }

    /**
     * Writes {@code perTenant} memories for each of tenants t0.. to the memories topic, on the partitions
     * {@code partitioning} gives them; every tenant has the same words, so only the tenant filter keeps
     * them apart. Returns each tenant's ids and adds the partitions used to {@code partitionsUsed}.
     */
    private static Map<Integer, Set<String>> publish(
            Topics topics,
            MemoryPartitioning partitioning,
            int tenants,
            int perTenant,
            Map<Integer, Set<Integer>> partitionsUsed)
            throws Exception {
        Map<Integer, Set<String>> expected = new HashMap<>();
        Instant t0 = Instant.parse("2026-11-28T10:00:00Z");
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (int t = 0; t < tenants; t++) {
                String tenant = "t" + t;
                for (int m = 0; m < perTenant; m++) {
                    String id = "m" + m;
                    MemoryRecord memory = new MemoryRecord(
                            id,
                            new MemoryRecord.Owner(tenant, "u", null),
                            MemoryType.PERSONAL,
                            "prefers trains over buses, note " + m + " of " + tenant,
                            new MemoryRecord.Times(t0, t0, t0),
                            Map.of(),
                            null,
                            MemoryRecord.Versions.FIRST,
                            null,
                            MemoryRecord.Vectors.NONE,
                            List.of());
                    int partition = partitioning.partition(tenant, id, PARTITIONS);
                    producer.send(new ProducerRecord<>(
                            topics.memories(), partition, tenant + "/" + id, Json.MAPPER.writeValueAsBytes(memory)));
                    expected.computeIfAbsent(t, x -> new HashSet<>()).add(id);
                    partitionsUsed.computeIfAbsent(t, x -> new HashSet<>()).add(partition);
                }
            }
        }
        return expected;
    }

    /** Both instances' answers for one tenant. */
    private record Answers(JsonNode fromA, JsonNode fromB) {}

    /** Searches both instances until both answer exactly {@code expected} or the deadline passes, then asserts it. */
    private static Answers awaitBoth(RemeApp a, RemeApp b, int tenant, Set<String> expected, int k, long deadline)
            throws Exception {
        return awaitBoth(a, b, tenant, expected, k, deadline, answers -> true);
    }

    /**
     * As above, also waiting for {@code settled}: a condition the caller asserts afterwards that only holds
     * once the group has stopped moving partitions (while it moves them, a partition may be read from a
     * standby replica, whose index can hold other segments and so other BM25 statistics).
     */
    private static Answers awaitBoth(
            RemeApp a, RemeApp b, int tenant, Set<String> expected, int k, long deadline, Predicate<Answers> settled)
            throws Exception {
        AtomicReference<Answers> last = new AtomicReference<>(new Answers(search(a, tenant, k), search(b, tenant, k)));
        Predicate<Answers> both = answers ->
                ids(answers.fromA()).equals(expected) && ids(answers.fromB()).equals(expected) && settled.test(answers);
        if (!both.test(last.get()) && System.nanoTime() < deadline) {
            try {
                Awaitility.await("tenant t" + tenant + " answered by both")
                        .atMost(Duration.ofNanos(deadline - System.nanoTime()))
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            last.set(new Answers(search(a, tenant, k), search(b, tenant, k)));
                            return both.test(last.get());
                        });
            } catch (ConditionTimeoutException e) {
                // Asserted below, with the last answers.
            }
        }
        JsonNode fromA = last.get().fromA();
        JsonNode fromB = last.get().fromB();
        assertEquals(expected, ids(fromA), "tenant t" + tenant + " via A: " + fromA);
        assertEquals(expected, ids(fromB), "tenant t" + tenant + " via B: " + fromB);
        return last.get();
    }

    @Test
    void eitherInstanceAnswersTheSameTenantOnlyAndNeverWrong() throws Exception {
        RemeApp a = RemeApp.start(config("a"));
        RemeApp b = RemeApp.start(config("b"));
        try {
            MemoryPartitioning partitioning = new MemoryPartitioning(1);
            Map<Integer, Set<String>> expected = publish(TOPICS, partitioning, TENANTS, 5, new HashMap<>());
            Set<Integer> owners = new HashSet<>();
            for (int t = 0; t < TENANTS; t++) {
                owners.addAll(partitioning.partitionsOf("t" + t, PARTITIONS));
            }
            assertTrue(owners.size() > 1, "the tenants spread over several partitions");

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (int t = 0; t < TENANTS; t++) {
                JsonNode fromA =
                        awaitBoth(a, b, t, expected.get(t), 20, deadline).fromA();
                assertFalse(fromA.path("partial").asBoolean());
                for (JsonNode hit : fromA.path("hits")) {
                    assertEquals("t" + t, hit.path("tenant").asText(), "never another tenant's memory");
                    assertTrue(hit.path("text").asText().endsWith("of t" + t));
                }
            }

            b.close();
            List<String> seen = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                for (int t = 0; t < TENANTS; t++) {
                    JsonNode answer = search(a, t, 20);
                    Set<String> got = ids(answer);
                    assertTrue(expected.get(t).containsAll(got), "never a wrong hit: " + answer);
                    if (!answer.path("partial").asBoolean()) {
                        assertEquals(expected.get(t), got, "a complete answer is the full answer: " + answer);
                    } else {
                        seen.add("partial t" + t);
                    }
                }
                // A pause, not a wait: twenty rounds of answers a quarter second apart, while B leaves.
                Thread.sleep(250);
            }
            // After the rebalance A holds every partition and every answer is complete again.
            deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (int t = 0; t < TENANTS; t++) {
                int tenant = t;
                AtomicReference<JsonNode> last = new AtomicReference<>(search(a, t, 20));
                Predicate<JsonNode> complete = answer ->
                        !answer.path("partial").asBoolean() && ids(answer).equals(expected.get(tenant));
                if (!complete.test(last.get()) && System.nanoTime() < deadline) {
                    try {
                        Awaitility.await("tenant t" + t + " complete after the move")
                                .atMost(Duration.ofNanos(deadline - System.nanoTime()))
                                .pollDelay(Duration.ZERO)
                                .pollInterval(Duration.ofMillis(250))
                                .until(() -> {
                                    last.set(search(a, tenant, 20));
                                    return complete.test(last.get());
                                });
                    } catch (ConditionTimeoutException e) {
                        // Asserted below, with the last answer.
                    }
                }
                JsonNode answer = last.get();
                assertEquals(
                        expected.get(t),
                        ids(answer),
                        "after the move: " + answer + " (" + seen.size() + " partial answers seen on the way)");
            }
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void aTenantInBucketsIsSearchedOnEveryPartitionItSpans() throws Exception {
        int buckets = 4;
        RemeApp a = RemeApp.start(bucketedConfig("bucketed-a", buckets));
        RemeApp b = RemeApp.start(bucketedConfig("bucketed-b", buckets));
        try {
            Map<Integer, Set<Integer>> partitionsUsed = new HashMap<>();
            Map<Integer, Set<String>> expected =
                    publish(BUCKETED, new MemoryPartitioning(buckets), 2, 24, partitionsUsed);
            assertTrue(
                    partitionsUsed.get(0).size() > 1 && partitionsUsed.get(1).size() > 1,
                    "each tenant's memories lie on several partitions: " + partitionsUsed);

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (int t = 0; t < 2; t++) {
                Answers answers = awaitBoth(
                        a,
                        b,
                        t,
                        expected.get(t),
                        50,
                        deadline,
                        both -> scores(both.fromA()).equals(scores(both.fromB())));
                JsonNode fromA = answers.fromA();
                assertFalse(fromA.path("partial").asBoolean(), fromA::toString);
                assertEquals(scores(fromA), scores(answers.fromB()), "both instances merge the same candidates");
                for (JsonNode hit : fromA.path("hits")) {
                    assertEquals("t" + t, hit.path("tenant").asText(), "never another tenant's memory");
                }
            }
        } finally {
            a.close();
            b.close();
        }
    }

    private static Map<String, Double> scores(JsonNode answer) {
        Map<String, Double> scores = new HashMap<>();
        answer.path("hits")
                .forEach(hit ->
                        scores.put(hit.path("id").asText(), hit.path("score").asDouble()));
        return scores;
    }
}
