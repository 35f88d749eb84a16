package io.reme.topic;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Every topic of the pipeline, named once from a configurable prefix (default {@code reme.}).
 * {@code messages} and {@code llm.results} feed the same tasks and must have the same partition
 * count; {@link #specs} creates them that way.
 */
public record Topics(String prefix) {
    public static final String DEFAULT_PREFIX = "reme.";
    /** A tenant or key record is a few hundred bytes: the tenants topic takes nothing larger. */
    public static final int TENANTS_MAX_BYTES = 64 * 1024;

    public Topics {
        if (prefix == null || !prefix.matches("[A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("topic prefix may only hold [A-Za-z0-9._-], got '" + prefix + "'");
        }
    }

    public static Topics withDefaultPrefix() {
        return new Topics(DEFAULT_PREFIX);
    }

    public String messages() {
        return prefix + "messages";
    }

    public String llmRequests() {
        return prefix + "llm.requests";
    }

    public String llmResults() {
        return prefix + "llm.results";
    }

    public String dialog() {
        return prefix + "dialog";
    }

    public String toolResults() {
        return prefix + "tool-results";
    }

    public String diary() {
        return prefix + "diary";
    }

    /** Edits of diary documents, applied by their single writer (keyed like {@code diary}). */
    public String diaryEdits() {
        return prefix + "diary.edits";
    }

    /** Memories waiting for their embedding (same key and partition as in {@code memories}). */
    public String memoriesPending() {
        return prefix + "memories.pending";
    }

    public String memories() {
        return prefix + "memories";
    }

    public String dlq() {
        return prefix + "dlq";
    }

    /** Tenants, their API keys (as hashes) and policies; read by every instance as a global store. */
    public String tenants() {
        return prefix + "tenants";
    }

    /**
     * The topics to create, each with an explicit {@code max.message.bytes} (see {@link RecordLimits}).
     *
     * @param partitions P, the parallelism of the session processor
     * @param maxMessageBytes the largest input record accepted
     * @param maxRequestBytes the largest record written (an LLM request: a whole window of messages)
     * @param toolResultRetention how long full tool outputs are kept (the TTL)
     */
    public List<TopicSpec> specs(
            int partitions, int maxMessageBytes, int maxRequestBytes, Duration toolResultRetention) {
        RecordLimits limits = new RecordLimits(maxMessageBytes, maxRequestBytes);
        String inputLimit = Integer.toString(limits.inputTopicMaxMessageBytes());
        String recordLimit = Integer.toString(limits.topicMaxMessageBytes());
        String max = RecordLimits.MAX_MESSAGE_BYTES;
        Map<String, String> append = Map.of("cleanup.policy", "delete", max, recordLimit);
        Map<String, String> compacted = Map.of("cleanup.policy", "compact", max, recordLimit);
        return List.of(
                new TopicSpec(messages(), partitions, Map.of("cleanup.policy", "delete", max, inputLimit)),
                new TopicSpec(
                        llmRequests(),
                        partitions,
                        Map.of("cleanup.policy", "delete", max, recordLimit, "compression.type", "zstd")),
                new TopicSpec(llmResults(), partitions, append),
                new TopicSpec(
                        dialog(),
                        partitions,
                        Map.of("cleanup.policy", "delete", max, recordLimit, "retention.ms", "-1")),
                new TopicSpec(
                        toolResults(),
                        partitions,
                        Map.of(
                                "cleanup.policy",
                                "compact,delete",
                                "retention.ms",
                                Long.toString(toolResultRetention.toMillis()),
                                max,
                                recordLimit,
                                "compression.type",
                                "zstd")),
                new TopicSpec(diary(), partitions, compacted),
                new TopicSpec(diaryEdits(), partitions, append),
                new TopicSpec(memoriesPending(), partitions, append),
                new TopicSpec(memories(), partitions, compacted),
                new TopicSpec(
                        dlq(),
                        partitions,
                        Map.of(
                                "cleanup.policy",
                                "delete",
                                max,
                                recordLimit,
                                "retention.ms",
                                Long.toString(Duration.ofDays(30).toMillis()))),
                // One partition: every instance reads all of it (a global store), and a tenant's delete
                // and its keys' revocations stay in the order written. Small records; compacted, so
                // the latest state of each tenant and key is kept for ever.
                new TopicSpec(
                        tenants(), 1, Map.of("cleanup.policy", "compact", max, Integer.toString(TENANTS_MAX_BYTES))));
    }
}
