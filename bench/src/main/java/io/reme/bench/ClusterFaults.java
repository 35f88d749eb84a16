package io.reme.bench;

import io.reme.cluster.LocalCluster;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;

/**
 * The faults {@code bench cluster} injects into a {@link LocalCluster}, named as in
 * {@link ClusterBenchmark#ALL_FAULTS}, each with how the part comes back: the leader of the busiest
 * {@code messages} partition or the active controller killed, a rolling restart of the brokers, an
 * instance, the workers or Connect killed, a broker's disk wiped. Each part is given three minutes to
 * come back.
 *
 * <p>Steps run one at a time, on one thread: a fault remembers its victim from injection to recovery.
 */
final class ClusterFaults {
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final Duration BACK = Duration.ofMinutes(3);

    /** One injected fault: its name, what it does, and how the part comes back. */
    record Fault(String name, Step inject, Step recover) {}

    /** One step of a fault, against the cluster. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private final LocalCluster cluster;
    private final List<String> sessionKeys;
    private final long seed;

    /**
     * The faults of {@code cluster} under the load of these sessions.
     *
     * @param sessionKeys the load's sessions ({@code tenant/session}), which place the busiest partition
     * @param seed chooses the broker whose disk is wiped
     */
    ClusterFaults(LocalCluster cluster, List<String> sessionKeys, long seed) {
        this.cluster = cluster;
        this.sessionKeys = List.copyOf(sessionKeys);
        this.seed = seed;
    }

    /** The faults named, in the order of {@link ClusterBenchmark#ALL_FAULTS}; every one when none is named. */
    List<Fault> chosen(List<String> names) {
        List<Fault> chosen = new ArrayList<>();
        for (Fault fault : all()) {
            if (names.isEmpty() || names.contains(fault.name())) {
                chosen.add(fault);
            }
        }
        return chosen;
    }

    private List<Fault> all() {
        int[] victim = new int[1];
        return List.of(
                new Fault(
                        "leader-kill",
                        () -> {
                            victim[0] = leaderOfBusiestMessagesPartition();
                            cluster.node(victim[0]).kill();
                        },
                        () -> cluster.restartNode(victim[0], BACK)),
                new Fault(
                        "controller-kill",
                        () -> {
                            victim[0] = cluster.activeController();
                            cluster.node(victim[0]).kill();
                        },
                        () -> cluster.restartNode(victim[0], BACK)),
                new Fault(
                        "rolling-restart",
                        () -> {
                            for (int node = 1; node <= LocalCluster.NODES; node++) {
                                cluster.node(node).process().stop(Duration.ofSeconds(60));
                                cluster.restartNode(node, BACK);
                                cluster.awaitInSync(Duration.ofMinutes(5));
                            }
                        },
                        () -> {}),
                new Fault(
                        "instance-kill",
                        () -> cluster.instance(1).process().kill(),
                        () -> cluster.restartInstance(1, BACK)),
                new Fault("workers-kill", () -> cluster.workers().process().kill(), () -> cluster.restartWorkers(BACK)),
                new Fault("connect-kill", () -> cluster.connect().process().kill(), () -> cluster.restartConnect(BACK)),
                new Fault(
                        "disk-wipe",
                        () -> {
                            victim[0] = 1 + new Random(seed).nextInt(LocalCluster.NODES);
                            cluster.node(victim[0]).kill();
                            cluster.node(victim[0]).wipe();
                        },
                        () -> cluster.restartNode(victim[0], BACK)));
    }

    private int leaderOfBusiestMessagesPartition() throws Exception {
        // Every session writes at the same pace, so the busiest partition holds the most sessions.
        Map<Integer, Integer> perPartition = new HashMap<>();
        try (var admin = cluster.admin()) {
            var messages = admin.describeTopics(List.of(TOPICS.messages()))
                    .allTopicNames()
                    .get()
                    .get(TOPICS.messages());
            for (String key : sessionKeys) {
                // The producer's default partitioner, as the API's producer places the session's key.
                int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8)))
                        % messages.partitions().size();
                perPartition.merge(partition, 1, Integer::sum);
            }
            int busiest = perPartition.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();
            return messages.partitions().get(busiest).leader().id();
        }
    }
}
