package io.reme.topology;

import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** The Streams settings the topology tests' drivers run with: production's guarantee and naming rule. */
final class DriverProperties {
    private DriverProperties() {}

    /**
     * Exactly-once v2, explicit internal names, and {@code stateDir} for the stores: the default one is
     * shared by every run on the machine, and two runs at once would fight over its locks.
     */
    static Properties of(String applicationId, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return props;
    }
}
