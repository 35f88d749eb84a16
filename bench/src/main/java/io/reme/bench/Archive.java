package io.reme.bench;

import io.reme.json.Json;
import io.reme.session.ArchivedMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the pipeline archived, read back for the fault benches' checks: the {@code dialog} topic, the
 * dialog files the sink wrote from it, and the diaries. Sessions are keyed {@code tenant/session},
 * users {@code tenant/user}.
 */
final class Archive {
    private Archive() {}

    /** Archived message ids on the {@code dialog} topic per session, in topic order, committed records only. */
    static Map<String, List<String>> topicIds(Properties client, String topic) throws IOException {
        Map<String, List<String>> ids = new HashMap<>();
        IOException[] failure = new IOException[1];
        readAll(client, topic, record -> {
            try {
                ArchivedMessage message = Json.MAPPER.readValue(record.value(), ArchivedMessage.class);
                ids.computeIfAbsent(message.tenant() + "/" + message.session(), s -> new ArrayList<>())
                        .add(message.message().id());
            } catch (IOException e) {
                failure[0] = e;
            }
        });
        if (failure[0] != null) {
            throw failure[0];
        }
        return ids;
    }

    /** Every committed record of {@code topic}, from the beginning to the end it has now. */
    static void readAll(Properties client, String topic, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(500)).forEach(each);
            }
        }
    }

    /** Message ids in the dialog JSONL files under {@code workspace} per session. */
    static Map<String, List<String>> fileIds(Path workspace) throws IOException {
        Map<String, List<String>> ids = new HashMap<>();
        for (Path file : files(workspace, "dialog", ".jsonl")) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    ArchivedMessage message = Json.MAPPER.readValue(line, ArchivedMessage.class);
                    ids.computeIfAbsent(message.tenant() + "/" + message.session(), s -> new ArrayList<>())
                            .add(message.message().id());
                }
            }
        }
        return ids;
    }

    /** Each user's diary pages under {@code workspace}, concatenated. */
    static Map<String, String> diaryText(Path workspace) throws IOException {
        Map<String, String> text = new HashMap<>();
        for (Path file : files(workspace, "memory", ".md")) {
            Path userDir = file.getParent().getParent();
            String user = userDir.getParent().getFileName() + "/" + userDir.getFileName();
            text.merge(user, Files.readString(file, StandardCharsets.UTF_8), String::concat);
        }
        return text;
    }

    /** Files {@code <workspace>/<tenant>/<user>/<folder>/*<suffix>}. */
    private static List<Path> files(Path workspace, String folder, String suffix) throws IOException {
        if (!Files.isDirectory(workspace)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(workspace, 4)) {
            return walk.filter(p -> p.getFileName().toString().endsWith(suffix)
                            && p.getParent().getFileName().toString().equals(folder))
                    .toList();
        }
    }
}
