package io.reme.topic;

import java.util.Map;
import java.util.Objects;

/** What a topic must look like: name, partition count and topic-level configs (cleanup policy, limits). */
public record TopicSpec(String name, int partitions, Map<String, String> configs) {
    public TopicSpec {
        Objects.requireNonNull(name, "name");
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be positive for " + name);
        }
        configs = Map.copyOf(configs);
    }
}
