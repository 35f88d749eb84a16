package io.reme.admin;

import io.reme.topic.TopicSpec;
import io.reme.topic.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
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

    private TopicProvisioner() {
    }

    /**
     * The partition count of a topic. Right after creation the broker may not know the topic yet
     * ("does not host this topic-partition"), so that answer is retried for up to ten seconds.
     */
    public static int partitions(Admin admin, String topic) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(List.of(topic)).allTopicNames().get();
                return described.get(topic).partitions().size();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** @param replicationFactor -1 for the broker default */
    public static void ensure(Admin admin, Topics topics, List<TopicSpec> specs, int replicationFactor) {
        try {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = new ArrayList<>();
            for (TopicSpec spec : specs) {
                if (!existing.contains(spec.name())) {
                    Optional<Short> rf = replicationFactor < 0 ? Optional.empty() : Optional.of((short) replicationFactor);
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
                LOG.info("topics created names={}", missing.stream().map(NewTopic::name).collect(Collectors.joining(",")));
            }
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
            throw new IllegalStateException("cannot create topics: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
