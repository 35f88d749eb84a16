package io.reme.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The application against a real cluster: three Kafka processes with SASL and ACLs, replication 3 and
 * {@code min.insync.replicas} 2, one application instance. It checks what the cluster promises (every
 * topic replicated, the ACL walls of an agent's principal) and what the application promises on it
 * (every accepted message exactly once and in order through the kill -9 of a busy partition's leader).
 */
@Tag("cluster")
@Tag("integration")
class ClusterIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DIR = Path.of("target", "cluster-it").toAbsolutePath();
    private static LocalCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws IOException {
        deleteRecursively(DIR);
        Path appJar = Path.of(System.getProperty("reme.app.jar", "../application/target/reme-streams-app.jar"));
        cluster = LocalCluster.in(DIR, new LocalCluster.Options(1, false, false, appJar, false, Map.of()))
                .start(Duration.ofMinutes(5));
        // Its own client: the cluster module does not see the application's test classes (ApiClient).
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stop();
        }
    }

    @Test
    void everyTopicIsReplicatedThreeTimesAndNeedsTwoInSync() throws Exception {
        try (Admin admin = cluster.admin()) {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true))
                    .names()
                    .get(30, TimeUnit.SECONDS);
            assertTrue(
                    names.containsAll(
                            List.of("reme.messages", "reme.llm.results", "reme.memories", "__consumer_offsets")),
                    names::toString);
            assertTrue(
                    names.stream().anyMatch(name -> name.startsWith("reme-streams-") && name.endsWith("-changelog")),
                    names::toString);
            Map<String, TopicDescription> topics =
                    admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            for (TopicDescription topic : topics.values()) {
                for (TopicPartitionInfo partition : topic.partitions()) {
                    assertEquals(
                            3,
                            partition.replicas().size(),
                            "replicas of " + topic.name() + "-" + partition.partition());
                }
            }
            List<ConfigResource> resources = names.stream()
                    .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name))
                    .toList();
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            for (Map.Entry<ConfigResource, Config> config : configs.entrySet()) {
                assertEquals(
                        "2",
                        config.getValue().get("min.insync.replicas").value(),
                        "min.insync.replicas of " + config.getKey().name());
            }
        }
    }

    @Test
    void anAgentsPrincipalWritesMessagesAndNothingElse() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer("agents")) {
            byte[] key = "acme/acl-check".getBytes(StandardCharsets.UTF_8);
            byte[] value = ("{\"tenant\":\"acme\",\"session\":\"acl-check\",\"user\":\"u\",\"role\":\"user\","
                            + "\"content\":\"written by the agents principal\"}")
                    .getBytes(StandardCharsets.UTF_8);
            assertTrue(producer.send(new ProducerRecord<>("reme.messages", key, value))
                            .get(60, TimeUnit.SECONDS)
                            .offset()
                    >= 0);
            for (String topic : List.of("reme.llm.results", "reme.memories", "reme.diary.edits", "reme.tenants")) {
                ExecutionException refused = assertThrows(
                        ExecutionException.class,
                        () -> producer.send(new ProducerRecord<>(topic, key, value))
                                .get(60, TimeUnit.SECONDS),
                        "agents writing " + topic);
                assertInstanceOf(TopicAuthorizationException.class, refused.getCause(), "agents writing " + topic);
            }
        }
        for (String topic : List.of("reme.messages", "reme.dialog", "reme.llm.requests", "reme.memories")) {
            try (KafkaConsumer<byte[], byte[]> consumer = consumer("agents", null)) {
                consumer.assign(List.of(new TopicPartition(topic, 0)));
                consumer.seekToBeginning(consumer.assignment());
                assertThrows(
                        TopicAuthorizationException.class,
                        () -> consumer.poll(Duration.ofSeconds(30)),
                        "agents reading " + topic);
            }
        }
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("agents", "reme-streams")) {
            consumer.subscribe(List.of("reme.messages"));
            assertThrows(
                    GroupAuthorizationException.class,
                    () -> consumer.poll(Duration.ofSeconds(30)),
                    "agents joining the application's group");
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        Properties settings = cluster.clientSettings("agents");
        settings.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"agents\" "
                        + "password=\"not-the-password\";");
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
            ExecutionException refused = assertThrows(
                    ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>("reme.messages", new byte[] {1}))
                            .get(60, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, refused.getCause());
        }
    }

    /**
     * Sessions are posted through the HTTP API, one message at a time each, while the leader of the
     * partition the first session lives on is killed with SIGKILL and later started again. A POST that
     * fails or times out is sent again with the same id until it is accepted. Afterwards every
     * session's context holds exactly the accepted ids, once each, in the order they were accepted.
     */
    @Test
    void everyAcceptedMessageOnceAndInOrderThroughTheKillOfAPartitionLeader() throws Exception {
        int sessions = 4;
        String run = Long.toString(System.nanoTime(), 36);
        Map<String, List<String>> accepted = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong failedPosts = new AtomicLong();
        AtomicLong longestFailureMs = new AtomicLong();
        AtomicLong slowestPostMs = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            String session = "eos-" + run + "-" + s;
            accepted.put(session, new CopyOnWriteArrayList<>());
            Thread writer = Thread.ofPlatform().name("writer-" + s).start(() -> {
                int seq = 0;
                while (!stop.get()) {
                    String id = session + "-m" + seq;
                    long failingSince = -1;
                    while (true) {
                        long sent = System.nanoTime();
                        int status = post(session, id, "message " + seq + " of " + session);
                        slowestPostMs.accumulateAndGet((System.nanoTime() - sent) / 1_000_000, Math::max);
                        if (status / 100 == 2) {
                            break;
                        }
                        failedPosts.incrementAndGet();
                        if (failingSince < 0) {
                            failingSince = System.nanoTime();
                        }
                        sleep(200);
                    }
                    if (failingSince >= 0) {
                        long failedMs = (System.nanoTime() - failingSince) / 1_000_000;
                        longestFailureMs.accumulateAndGet(failedMs, Math::max);
                    }
                    accepted.get(session).add(id);
                    seq++;
                }
            });
            writers.add(writer);
        }

        String firstSession = "eos-" + run + "-0";
        await("the first messages accepted")
                .atMost(Duration.ofSeconds(60))
                .until(() -> accepted.get(firstSession).size() >= 5);
        int leader = leaderOfSession(firstSession);
        cluster.node(leader).kill();
        assertFalse(cluster.node(leader).process().isAlive());
        int beforeKill = total(accepted.values());
        await("messages accepted with node-" + leader + " dead")
                .atMost(Duration.ofSeconds(120))
                .until(() -> total(accepted.values()) >= beforeKill + 40);
        cluster.restartNode(leader, Duration.ofMinutes(2));
        int afterRestart = total(accepted.values());
        await("messages accepted with node-" + leader + " back")
                .atMost(Duration.ofSeconds(120))
                .until(() -> total(accepted.values()) >= afterRestart + 20);
        stop.set(true);
        for (Thread writer : writers) {
            writer.join(Duration.ofSeconds(60));
            assertFalse(writer.isAlive());
        }
        System.out.printf(
                "leader kill: node-%d, %d messages accepted, %d POSTs failed and were retried, the longest failure"
                        + " %d ms, the slowest POST %d ms%n",
                leader, total(accepted.values()), failedPosts.get(), longestFailureMs.get(), slowestPostMs.get());

        for (Map.Entry<String, List<String>> session : accepted.entrySet()) {
            List<String> expected = session.getValue();
            await("the context of " + session.getKey() + " holds every accepted message")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> contextIds(session.getKey()).size() >= expected.size());
            assertEquals(
                    expected,
                    contextIds(session.getKey()),
                    "the ids in " + session.getKey() + "'s context: each accepted one, once, in order");
        }
    }

    private static int leaderOfSession(String session) throws Exception {
        // The API's answer names the partition; its leader is the node to kill.
        HttpResponse<String> response = send(postRequest(session, session + "-probe", "where does this live?"));
        int partition = JSON.readTree(response.body())
                .path("records")
                .path(0)
                .path("partition")
                .asInt(-1);
        assertTrue(partition >= 0, response::body);
        try (Admin admin = cluster.admin()) {
            TopicDescription messages = admin.describeTopics(List.of("reme.messages"))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get("reme.messages");
            return messages.partitions().get(partition).leader().id();
        }
    }

    private static List<String> contextIds(String session) throws IOException, InterruptedException {
        HttpRequest get = HttpRequest.newBuilder(
                        URI.create(cluster.spec().appUrl(1) + "/v1/sessions/" + session + "/context?window=all"))
                .timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + cluster.spec().apiKey("acme"))
                .GET()
                .build();
        HttpResponse<String> response = http.send(get, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            return List.of();
        }
        List<String> ids = new ArrayList<>();
        for (JsonNode message : JSON.readTree(response.body()).path("messages")) {
            String id = message.path("message").path("id").asText();
            if (!id.endsWith("-probe")) {
                ids.add(id);
            }
        }
        return ids;
    }

    private static int post(String session, String id, String text) {
        try {
            return send(postRequest(session, id, text)).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static HttpRequest postRequest(String session, String id, String text) {
        String body = JSON.createObjectNode()
                .put("session", session)
                .put("user", "alice")
                .put("role", "user")
                .put("id", id)
                .put("content", text)
                .toString();
        return HttpRequest.newBuilder(URI.create(cluster.spec().appUrl(1) + "/v1/messages"))
                .timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + cluster.spec().apiKey("acme"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static KafkaProducer<byte[], byte[]> producer(String principal) {
        Properties settings = cluster.clientSettings(principal);
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String principal, String group) {
        Properties settings = cluster.clientSettings(principal);
        if (group != null) {
            settings.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static int total(Collection<List<String>> lists) {
        return lists.stream().mapToInt(List::size).sum();
    }

    private static void sleep(long millis) {
        try {
            // A pause, not a wait: a writer backs off before posting again.
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(path);
            }
        }
    }
}
