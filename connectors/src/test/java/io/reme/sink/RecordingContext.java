package io.reme.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkTaskContext;

/** A sink task's context for tests: its dead-letter reporter and partitions, and the calls the task made on it. */
final class RecordingContext implements SinkTaskContext {
    private final ErrantRecordReporter reporter;
    private final Set<TopicPartition> assignment;
    /** {@code pause N}, {@code resume N} (partitions) and {@code timeout MS}, in order. */
    final List<String> calls = new ArrayList<>();

    RecordingContext(ErrantRecordReporter reporter, Set<TopicPartition> assignment) {
        this.reporter = reporter;
        this.assignment = Set.copyOf(assignment);
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
        return reporter;
    }

    @Override
    public Map<String, String> configs() {
        return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {}

    @Override
    public void offset(TopicPartition partition, long offset) {}

    @Override
    public void timeout(long timeoutMs) {
        calls.add("timeout " + timeoutMs);
    }

    @Override
    public Set<TopicPartition> assignment() {
        return assignment;
    }

    @Override
    public void pause(TopicPartition... partitions) {
        calls.add("pause " + partitions.length);
    }

    @Override
    public void resume(TopicPartition... partitions) {
        calls.add("resume " + partitions.length);
    }

    @Override
    public void requestCommit() {}

    @Override
    public PluginMetrics pluginMetrics() {
        return null;
    }
}
