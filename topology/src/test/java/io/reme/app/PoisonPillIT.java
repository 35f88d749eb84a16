package io.reme.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.config.AppConfig;
import io.reme.diary.DiaryEdit;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetterPayload;
import io.reme.json.Json;
import io.reme.topic.RecordLimits;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Poison pills on a real broker: a 20 MB message and a 17 MB diary edit, produced zstd-compressed so
 * the broker takes them, are dead-lettered as bounded excerpts (size, digest, origin) and the records
 * behind them are processed as usual; every topic and changelog has an explicit max.message.bytes.
 */
@Tag("integration")
class PoisonPillIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(PoisonPillIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final String DAY = "2026-12-01";

    @Test
    void oversizedInputsAreDeadLetteredBoundedAndThePipelineGoesOn() throws Exception {
        AppConfig config = TestApps.config(broker.bootstrapServers(), dir.resolve("app"), Map.of());
        // A topic made before topics had explicit limits (here on the broker's defaults) gets them at start.
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPICS.diary(), Optional.of(4), Optional.empty())))
                    .all()
                    .get();
        }
        try (RemeApp app = RemeApp.start(config);
                KafkaProducer<byte[], byte[]> producer = compressingProducer()) {
            byte[] hugeMessage = envelope("huge", "x".repeat(20 * 1024 * 1024));
            RecordMetadata huge = producer.send(new ProducerRecord<>(TOPICS.messages(), bytes("acme/s1"), hugeMessage))
                    .get();
            producer.send(new ProducerRecord<>(TOPICS.messages(), bytes("acme/s1"), envelope("small", "hello")))
                    .get();
            byte[] hugeEdit = edit("edit-huge", "y".repeat(17 * 1024 * 1024));
            String documentKey = "acme/u1/" + DAY;
            RecordMetadata hugeEditAt = producer.send(
                            TestKafka.signedEdit(TOPICS.diaryEdits(), bytes(documentKey), hugeEdit))
                    .get();
            producer.send(TestKafka.signedEdit(TOPICS.diaryEdits(), bytes(documentKey), edit("edit-small", "# Day\n")))
                    .get();

            long started = System.nanoTime();
            ContextApi.awaitCounted(app::httpUrl, TestApps.ACME_KEY, Map.of("s1", 1), Duration.ofSeconds(60), () -> {});
            awaitDiary(app, Duration.ofSeconds(60));
            LOG.info(
                    "records behind the poison pills processed after {} ms", (System.nanoTime() - started) / 1_000_000);

            List<ConsumerRecord<String, byte[]>> dead =
                    TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.dlq(), 2, Duration.ofSeconds(30));
            assertEquals(2, dead.size(), "one dead letter per poison pill");
            expectBounded(find(dead, TOPICS.messages()), hugeMessage, huge);
            expectBounded(find(dead, TOPICS.diaryEdits()), hugeEdit, hugeEditAt);

            assertEquals(200, status(app.httpUrl() + "/health/ready"), "no stream thread kept failing");
            expectExplicitLimits(config);
        }
    }

    private static void expectBounded(ConsumerRecord<String, byte[]> letter, byte[] original, RecordMetadata origin)
            throws Exception {
        assertEquals("TOO_LARGE", DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.REASON));
        assertEquals(DeadLetterPayload.EXCERPT_BYTES, letter.value().length, "an excerpt, not the payload");
        assertEquals(
                Integer.toString(original.length),
                DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.VALUE_SIZE));
        assertEquals(
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(original)),
                DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.VALUE_SHA256));
        assertEquals(
                Integer.toString(origin.partition()),
                DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.PARTITION));
        assertEquals(
                Long.toString(origin.offset()), DeadLetterHeaders.read(letter.headers(), DeadLetterHeaders.OFFSET));
    }

    private static ConsumerRecord<String, byte[]> find(List<ConsumerRecord<String, byte[]>> dead, String topic) {
        return dead.stream()
                .filter(r -> topic.equals(DeadLetterHeaders.read(r.headers(), DeadLetterHeaders.TOPIC)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no dead letter from " + topic));
    }

    /** Every topic and changelog states its max.message.bytes itself, with the value the limits give. */
    private void expectExplicitLimits(AppConfig config) throws Exception {
        RecordLimits limits = config.recordLimits();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            Set<String> names = admin.listTopics().names().get().stream()
                    .filter(name -> name.startsWith(TOPICS.prefix()) || name.endsWith("-changelog"))
                    .collect(Collectors.toSet());
            assertTrue(
                    names.stream().filter(name -> name.endsWith("-changelog")).count() >= 5,
                    "the session and diary stores' changelogs: " + names);
            List<ConfigResource> resources = names.stream()
                    .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name))
                    .toList();
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(resources).all().get();
            List<String> wrong = new ArrayList<>();
            configs.forEach((resource, described) -> {
                ConfigEntry entry = described.get(RecordLimits.MAX_MESSAGE_BYTES);
                int expected = resource.name().equals(TOPICS.messages())
                        ? limits.inputTopicMaxMessageBytes()
                        : resource.name().equals(TOPICS.tenants())
                                ? Topics.TENANTS_MAX_BYTES
                                : limits.topicMaxMessageBytes();
                if (entry.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                        || !entry.value().equals(Integer.toString(expected))) {
                    wrong.add(resource.name() + "=" + entry.value() + " (" + entry.source() + ")");
                }
            });
            assertTrue(wrong.isEmpty(), "topics without their explicit max.message.bytes: " + wrong);
        }
    }

    private static void awaitDiary(RemeApp app, Duration timeout) {
        await("the edit behind the poison pill applied")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    ContextApi.Response page = ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, "u1", DAY);
                    assertTrue(
                            page.status() == 200
                                    && page.body().path("content").asText().equals("# Day\n"),
                            "last page " + page);
                });
    }

    private static int status(String url) {
        return ApiClient.get(url, null).status();
    }

    private static KafkaProducer<byte[], byte[]> compressingProducer() {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.COMPRESSION_TYPE_CONFIG,
                        "zstd",
                        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                        48 * 1024 * 1024,
                        ProducerConfig.BUFFER_MEMORY_CONFIG,
                        96L * 1024 * 1024),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static byte[] envelope(String id, String content) {
        return bytes("{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u1\",\"id\":\"" + id
                + "\",\"role\":\"user\",\"content\":\"" + content + "\",\"time\":\"" + DAY + "T10:00:00Z\"}");
    }

    private static byte[] edit(String id, String content) throws Exception {
        return Json.MAPPER.writeValueAsBytes(
                new DiaryEdit(id, "acme", "u1", DAY, 0, content, "test", Instant.parse(DAY + "T10:00:00Z"), List.of()));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
