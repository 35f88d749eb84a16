package io.reme.admin;

import io.reme.retry.Poll;
import io.reme.topic.RecordLimits;
import io.reme.topic.TopicSpec;
import io.reme.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the pipeline's topics that do not exist yet and checks the ones that do: the session
 * processor needs {@code messages} and {@code llm.results} to have the same partition count, or
 * results would reach a task that does not own the session.
 */
public final class TopicProvisioner {
    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

    private TopicProvisioner() {}

    /**
     * The partition count of a topic. Right after creation the broker may not know the topic yet
     * ("does not host this topic-partition"), so that answer is retried for up to ten seconds.
     */
    public static int partitions(Admin admin, String topic) throws InterruptedException, ExecutionException {
        Optional<Integer> partitions = Poll.first(Duration.ofSeconds(10), Duration.ofMillis(100), () -> {
            try {
                Map<String, TopicDescription> described =
                        admin.describeTopics(List.of(topic)).allTopicNames().get();
                return Optional.of(described.get(topic).partitions().size());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    return Optional.empty();
                }
                throw e;
            }
        });
        return partitions.orElseThrow(() -> new ExecutionException(
                new UnknownTopicOrPartitionException("topic " + topic + " is not visible after 10 s")));
    }

    /**
     * Gives topics that existed before this version (created without it, or by hand) the
     * {@code max.message.bytes} of their spec when theirs is not set on the topic or is lower: on a
     * broker default of 1 MB a large output would be refused. A higher explicit value is the operator's
     * and is kept. Without the right to alter configs this only warns.
     */
    private static void alignLimits(Admin admin, List<TopicSpec> specs, Set<String> existing)
            throws InterruptedException {
        Map<ConfigResource, TopicSpec> wanted = new LinkedHashMap<>();
        for (TopicSpec spec : specs) {
            if (existing.contains(spec.name()) && spec.configs().containsKey(RecordLimits.MAX_MESSAGE_BYTES)) {
                wanted.put(new ConfigResource(ConfigResource.Type.TOPIC, spec.name()), spec);
            }
        }
        if (wanted.isEmpty()) {
            return;
        }
        try {
            Map<ConfigResource, Config> described =
                    admin.describeConfigs(wanted.keySet()).all().get();
            Map<ConfigResource, Collection<AlterConfigOp>> changes = new LinkedHashMap<>();
            wanted.forEach((resource, spec) -> {
                String limit = spec.configs().get(RecordLimits.MAX_MESSAGE_BYTES);
                ConfigEntry current = described.get(resource).get(RecordLimits.MAX_MESSAGE_BYTES);
                boolean explicit = current != null && current.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG;
                if (!explicit || Long.parseLong(current.value()) < Long.parseLong(limit)) {
                    LOG.info(
                            "topic limit aligned topic={} max.message.bytes={} was={}",
                            spec.name(),
                            limit,
                            current == null ? "unset" : current.value() + (explicit ? "" : " (default)"));
                    changes.put(
                            resource,
                            List.of(new AlterConfigOp(
                                    new ConfigEntry(RecordLimits.MAX_MESSAGE_BYTES, limit), AlterConfigOp.OpType.SET)));
                }
            });
            if (!changes.isEmpty()) {
                admin.incrementalAlterConfigs(changes).all().get();
            }
        } catch (ExecutionException e) {
            LOG.warn(
                    "cannot check or set max.message.bytes of existing topics; large records may be refused error={}",
                    e.getCause().toString());
        }
    }

    /** @param replicationFactor -1 for the broker default */
    public static void ensure(Admin admin, Topics topics, List<TopicSpec> specs, int replicationFactor) {
        try {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = new ArrayList<>();
            for (TopicSpec spec : specs) {
                if (!existing.contains(spec.name())) {
                    Optional<Short> rf =
                            replicationFactor < 0 ? Optional.empty() : Optional.of((short) replicationFactor);
                    missing.add(new NewTopic(spec.name(), Optional.of(spec.partitions()), rf).configs(spec.configs()));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
                LOG.info(
                        "topics created names={}",
                        missing.stream().map(NewTopic::name).collect(Collectors.joining(",")));
            }
            alignLimits(admin, specs, existing);
            int messages = partitions(admin, topics.messages());
            int results = partitions(admin, topics.llmResults());
            if (messages != results) {
                throw new IllegalStateException("topics " + topics.messages() + " (" + messages + " partitions) and "
                        + topics.llmResults() + " (" + results + " partitions) must have the same partition count");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "cannot create topics: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
