package io.reme.local;

import io.reme.topic.Topics;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What the file sink connectors need to know about the deployment, wherever their worker runs.
 *
 * @param name the prefix of the connectors' names (and so of their consumer groups)
 * @param requestSecret the deployment's request secret as text, which the dialog sink checks erasure
 *     markers with; never shown by {@link #toString}
 * @param recordMaxBytes the largest record a sink writes (the pipeline's input limit plus headroom: no
 *     record the pipeline writes to a sink's topic is larger); larger ones are dead-lettered
 */
public record FileSinkSettings(
        String name,
        Topics topics,
        Path workspace,
        Duration toolResultRetention,
        String requestSecret,
        int recordMaxBytes) {
    @Override
    public String toString() {
        return "FileSinkSettings[name=" + name + ", topics=" + topics + ", workspace=" + workspace
                + ", toolResultRetention=" + toolResultRetention + ", requestSecret=hidden, recordMaxBytes="
                + recordMaxBytes + "]";
    }

    /**
     * How the connectors' consumers belong to their groups, as the Streams consumers do. With an instance id
     * a restarted worker takes its place back at once; without one (empty) it joins as a new member, and the
     * partitions wait for the old one's session to time out. Restarted after a kill -9 with Kafka's default
     * 45 s session and dynamic members, the sinks resumed 28 s after the instance was READY.
     *
     * @param instanceId the instance's static member id, or empty for dynamic membership
     * @param sessionTimeout how long the group waits for a member that stopped heartbeating
     */
    public record Membership(String instanceId, Duration sessionTimeout) {
        public Membership {
            if (sessionTimeout.isNegative() || sessionTimeout.isZero()) {
                throw new IllegalArgumentException("sessionTimeout must be positive: " + sessionTimeout);
            }
        }
    }
}
