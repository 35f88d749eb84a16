package io.reme.cli;

import io.reme.admin.DlqReplay;
import io.reme.app.RemeApp;
import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.dlq.DlqReason;
import io.reme.llm.LlmKind;
import io.reme.topic.Topics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code replay-dlq}: sends dead-lettered diary and extraction requests (a span the session gave up on)
 * to {@code llm.requests} again, for an operator once the cause is fixed.
 */
@Command(
        name = "replay-dlq",
        mixinStandardHelpOptions = true,
        description = "Send dead-lettered LLM requests to llm.requests again; each dead letter is replayed once "
                + "(the group <application.id>-dlq-replay remembers how far it read).")
final class ReplayDlqCommand implements Callable<Integer> {
    @Mixin
    CommonOptions options;

    @Option(
            names = "--reason",
            paramLabel = "REASON",
            defaultValue = "LLM_FAILED",
            description = "Dead-letter reason to replay (default LLM_FAILED).")
    DlqReason reason;

    @Option(
            names = "--kind",
            paramLabel = "KIND",
            split = ",",
            description = "Only these request kinds: DIARY, EXTRACT (default both). COMPACT requests are never "
                    + "replayed: their session plans a failed compaction again.")
    Set<LlmKind> kinds = Set.of();

    @Option(names = "--tenant", paramLabel = "TENANT", description = "Only this tenant's requests.")
    String tenant;

    @Option(names = "--dry-run", description = "List what would be replayed; send nothing, remember nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws InterruptedException {
        AppConfig config = options.load(Map.of());
        if (config.embeddedBroker()) {
            throw new ConfigException(List.of("reme.bootstrap.servers: replay-dlq needs the cluster "
                    + "(--bootstrap-servers; for the embedded default, the address 'run' printed)"));
        }
        if (kinds.contains(LlmKind.COMPACT)) {
            throw new ConfigException(List.of("--kind: COMPACT requests are not replayed (their session plans a "
                    + "failed compaction again, and would drop a replayed one's summary); DIARY and EXTRACT are"));
        }
        Topics topics = config.topics();
        String bootstrap = config.get(AppConfig.BOOTSTRAP_SERVERS);
        Map<String, Object> consumerProps = RemeApp.clientProps(config, bootstrap);
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, config.get(AppConfig.APPLICATION_ID) + "-dlq-replay");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, Object> producerProps = RemeApp.clientProps(config, bootstrap);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        producerProps.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, config.get(AppConfig.REQUEST_MAX_BYTES) + 64 * 1024);
        try (KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer())) {
            DlqReplay.Summary summary = DlqReplay.run(
                    consumer,
                    producer,
                    topics.dlq(),
                    topics.llmRequests(),
                    new DlqReplay.Filter(reason.name(), kinds, tenant, dryRun),
                    request -> System.out.println((dryRun ? "would replay " : "replayed ") + request.kind()
                            + " tenant=" + request.dialog().tenant() + " session="
                            + request.dialog().session() + " requestId="
                            + request.requestId() + " seq=" + request.dialog().fromSeq() + "-"
                            + request.dialog().toSeq()));
            System.out.println("DONE read=" + summary.read() + " " + (dryRun ? "wouldReplay=" : "replayed=")
                    + summary.replayed() + " skippedCompactions=" + summary.skippedCompactions());
        }
        return 0;
    }
}
