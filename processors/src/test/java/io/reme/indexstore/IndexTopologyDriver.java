package io.reme.indexstore;

import io.reme.dlq.InputLimit;
import io.reme.llm.RequestSecret;
import io.reme.session.SessionSettings;
import io.reme.topic.Topics;
import io.reme.trace.RecordTracing;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;

/** The memory index sub-topology alone, wired as RemeTopology wires it, under a TopologyTestDriver. */
final class IndexTopologyDriver {
    static final Topics TOPICS = Topics.withDefaultPrefix();
    static final RequestSecret SECRET = RequestSecret.of("index-test-secret-0123456789abcdef");

    private IndexTopologyDriver() {}

    /** A driver whose state lives in {@code stateDir}: a second one on the same directory reopens the index. */
    static TopologyTestDriver open(Path stateDir, String applicationId) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        Topology topology = new Topology();
        MemoryIndexUpdater.addTo(
                topology,
                TOPICS.memories(),
                new InputLimit(SessionSettings.defaults().input().maxMessageBytes()),
                SECRET,
                RecordTracing.OFF);
        return new TopologyTestDriver(topology, props);
    }
}
