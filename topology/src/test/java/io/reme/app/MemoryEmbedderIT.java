package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.reme.admin.TopicProvisioner;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LanguageRoutedEmbeddingModel;
import io.reme.json.Json;
import io.reme.metrics.PipelineMetrics;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.topic.Topics;
import io.reme.worker.MemoryEmbedder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The embedder on the in-JVM broker, with a model that refuses any batch holding the word "poison":
 * a memory whose text it refuses is dead-lettered alone, one whose context it refuses is written
 * without its context vector, and the others of the same batch get both vectors.
 */
@Tag("integration")
class MemoryEmbedderIT extends WithBroker {
    private static final Topics TOPICS = new Topics("emb.");
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    /** A vector of the text's length; refuses (not retryably) any batch with "poison" in it. */
    private static final class PickyModel implements EmbeddingModel {
        @Override
        public String id() {
            return "picky";
        }

        @Override
        public int dimensions() {
            return 2;
        }

        @Override
        public List<float[]> embed(List<String> texts) throws EmbeddingException {
            List<float[]> vectors = new ArrayList<>();
            for (String text : texts) {
                if (text.contains("poison")) {
                    throw new EmbeddingException("refused", false, null);
                }
                vectors.add(new float[] {text.length(), 1});
            }
            return vectors;
        }

        @Override
        public void close() {}
    }

    @Test
    void aTextTheModelRefusesCostsOnlyItsOwnMemoryAVector() throws Exception {
        String bootstrap = broker.bootstrapServers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicProvisioner.ensure(admin, TOPICS, TOPICS.specs(1, 1 << 20, 1 << 24, Duration.ofDays(3)), -1);
        }
        MemoryRecord good = MemoryRecord.of("m-good", "acme", "alice", null, MemoryType.PERSONAL, "likes tea", T0)
                .withContext("we talked about drinks");
        MemoryRecord refused = MemoryRecord.of("m-refused", "acme", "alice", null, MemoryType.PERSONAL, "poison", T0);
        MemoryRecord badContext = MemoryRecord.of(
                        "m-context", "acme", "alice", null, MemoryType.PERSONAL, "walks daily", T0)
                .withContext("next to the poison ivy");
        // All three in one batch: the embedder reads them in one poll once it starts.
        try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(bootstrap)) {
            for (MemoryRecord memory : List.of(good, refused, badContext)) {
                producer.send(new ProducerRecord<>(
                        TOPICS.memoriesPending(), memory.id().getBytes(StandardCharsets.UTF_8), Json.bytes(memory)));
            }
            producer.flush();
        }

        try (MemoryEmbedder _ = MemoryEmbedder.start(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                TOPICS,
                "emb-it",
                new PickyModel(),
                PipelineMetrics.NONE)) {
            Map<String, MemoryRecord> written = new HashMap<>();
            for (ConsumerRecord<String, byte[]> record :
                    TestKafka.readCommitted(bootstrap, TOPICS.memories(), 2, Duration.ofSeconds(60))) {
                written.put(record.key(), memory(record.value()));
            }
            assertEquals(
                    List.of("m-context", "m-good"),
                    written.keySet().stream().sorted().toList());
            assertArrayEquals(new float[] {9, 1}, written.get("m-good").vector());
            assertArrayEquals(
                    new float[] {good.contextText().length(), 1},
                    written.get("m-good").contextVector());
            assertArrayEquals(new float[] {11, 1}, written.get("m-context").vector());
            assertNull(written.get("m-context").contextVector(), "its context was refused: text vector only");

            List<ConsumerRecord<String, byte[]>> dead =
                    TestKafka.readCommitted(bootstrap, TOPICS.dlq(), 1, Duration.ofSeconds(60));
            assertEquals(
                    List.of("m-refused"), dead.stream().map(ConsumerRecord::key).toList());
            assertEquals("EMBEDDING_FAILED", DeadLetterHeaders.read(dead.get(0).headers(), DeadLetterHeaders.REASON));
        }
    }

    /** Three numbers per text, so its vectors cannot pass for the other model's. */
    private static final class ChineseModel implements EmbeddingModel {
        @Override
        public String id() {
            return "zh";
        }

        @Override
        public int dimensions() {
            return 3;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> new float[] {t.length(), 1, 1}).toList();
        }

        @Override
        public void close() {}
    }

    @Test
    void eachMemoryIsEmbeddedByTheModelOfItsTextsScript() throws Exception {
        Topics topics = new Topics("embzh.");
        String bootstrap = broker.bootstrapServers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicProvisioner.ensure(admin, topics, topics.specs(1, 1 << 20, 1 << 24, Duration.ofDays(3)), -1);
        }
        // The Chinese memory's context is English: it is embedded by the model of the text, with the text.
        MemoryRecord chinese = MemoryRecord.of("m-zh", "acme", "alice", null, MemoryType.PERSONAL, "我喜欢喝龙井茶", T0)
                .withContext("we talked about drinks");
        MemoryRecord english = MemoryRecord.of("m-en", "acme", "alice", null, MemoryType.PERSONAL, "likes tea", T0)
                .withContext("我们聊了饮料");
        try (KafkaProducer<byte[], byte[]> producer = TestKafka.producer(bootstrap)) {
            for (MemoryRecord memory : List.of(chinese, english)) {
                producer.send(new ProducerRecord<>(
                        topics.memoriesPending(), memory.id().getBytes(StandardCharsets.UTF_8), Json.bytes(memory)));
            }
            producer.flush();
        }

        try (MemoryEmbedder embedder = MemoryEmbedder.start(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                topics,
                "embzh-it",
                new LanguageRoutedEmbeddingModel(new PickyModel(), new ChineseModel()),
                PipelineMetrics.NONE)) {
            Map<String, MemoryRecord> written = new HashMap<>();
            for (ConsumerRecord<String, byte[]> record :
                    TestKafka.readCommitted(bootstrap, topics.memories(), 2, Duration.ofSeconds(60))) {
                written.put(record.key(), memory(record.value()));
            }
            assertEquals("zh", written.get("m-zh").vectorModel());
            assertArrayEquals(new float[] {7, 1, 1}, written.get("m-zh").vector());
            assertArrayEquals(
                    new float[] {chinese.contextText().length(), 1, 1},
                    written.get("m-zh").contextVector());
            assertEquals("picky", written.get("m-en").vectorModel());
            assertArrayEquals(new float[] {9, 1}, written.get("m-en").vector());
            assertArrayEquals(
                    new float[] {english.contextText().length(), 1},
                    written.get("m-en").contextVector());
        }
    }

    private static MemoryRecord memory(byte[] value) throws IOException {
        return Json.MAPPER.readValue(value, MemoryRecord.class);
    }
}
