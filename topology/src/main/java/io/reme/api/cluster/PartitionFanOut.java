package io.reme.api.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds which instance holds the active task of each wanted partition of a topic, and asks another
 * instance over HTTP (once, marked as forwarded). A partition no instance holds is simply absent
 * from {@link #owners}; callers report it as missing. {@link #gather} is the whole fan-out: each
 * owner asked once for its partitions, this instance directly, the parts returned with what is
 * missing.
 */
public final class PartitionFanOut {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionFanOut.class);

    /** The Streams metadata of every instance of the application, read again at each fan-out. */
    private final Supplier<Collection<StreamsMetadata>> clients;

    private final HostInfo self;
    private final String topic;
    private final InstanceClient client;

    public PartitionFanOut(StreamsStores streams, Instance self, String topic) {
        this(streams::metadataForAllStreamsClients, self, topic);
    }

    private PartitionFanOut(Supplier<Collection<StreamsMetadata>> clients, Instance self, String topic) {
        this.clients = clients;
        this.self = self.address();
        this.topic = topic;
        this.client = InstanceClient.from(self);
    }

    /** A fan-out over given metadata instead of a running application's, for tests. */
    static PartitionFanOut over(Supplier<Collection<StreamsMetadata>> clients, Instance self, String topic) {
        return new PartitionFanOut(clients, self, topic);
    }

    /** One instance's part of a fanned-out answer, which says the partitions it answered for. */
    public interface Part {
        Set<Integer> answered();
    }

    /** The parts that came back (this instance's and the others'), and the wanted partitions none answered for. */
    public record Gathered<P>(List<P> parts, Set<Integer> missing) {}

    /**
     * Asks each instance holding active tasks of the wanted partitions for its part, once: this one by
     * {@code local}, the others by POSTing {@code body} plus {@code "partitions"} (theirs) to
     * {@code path} on the caller's behalf. An instance that does not answer adds no part, and a
     * partition no instance holds (as while a rebalance moves it) is asked of no one: their partitions
     * stay missing. Another instance's 400 or 500 is thrown ({@link #post}).
     */
    public <P extends Part> Gathered<P> gather(
            Set<Integer> wanted,
            Function<Set<Integer>, P> local,
            String path,
            Map<String, Object> body,
            Caller caller,
            Class<P> answer) {
        return gather(wanted, local, null, path, body, caller, answer);
    }

    /**
     * As {@link #gather(Set, Function, String, Map, Caller, Class)}; then each partition still missing
     * (its owner did not answer: killed and not yet given up by the group, or restoring its state after
     * a crash) is read from a standby replica: this instance's by {@code standby}, another's by POSTing
     * with {@code "standby": true}, which that instance answers from its standby replicas.
     */
    public <P extends Part> Gathered<P> gather(
            Set<Integer> wanted,
            Function<Set<Integer>, P> local,
            Function<Set<Integer>, P> standby,
            String path,
            Map<String, Object> body,
            Caller caller,
            Class<P> answer) {
        Set<Integer> missing = new TreeSet<>(wanted);
        List<P> parts = new ArrayList<>();
        Set<HostInfo> silent = new HashSet<>();
        for (Map.Entry<HostInfo, Set<Integer>> host : owners(wanted).entrySet()) {
            Optional<P> part = isSelf(host.getKey())
                    ? Optional.of(local.apply(host.getValue()))
                    : post(host.getKey(), path, asked(body, host.getValue(), false), caller, answer);
            part.ifPresentOrElse(
                    p -> {
                        parts.add(p);
                        missing.removeAll(p.answered());
                    },
                    () -> silent.add(host.getKey()));
        }
        if (standby == null || missing.isEmpty()) {
            return new Gathered<>(List.copyOf(parts), missing);
        }
        // An instance that just did not answer as an owner is not asked again as a standby.
        for (Map.Entry<HostInfo, Set<Integer>> host : standbys(missing, silent).entrySet()) {
            Optional<P> part = isSelf(host.getKey())
                    ? Optional.of(standby.apply(host.getValue()))
                    : post(host.getKey(), path, asked(body, host.getValue(), true), caller, answer);
            part.ifPresent(p -> {
                parts.add(p);
                missing.removeAll(p.answered());
                LOG.info(
                        "answered from standby replicas host={}:{} partitions={}",
                        host.getKey().host(),
                        host.getKey().port(),
                        p.answered());
            });
        }
        return new Gathered<>(List.copyOf(parts), missing);
    }

    private static Map<String, Object> asked(Map<String, Object> body, Set<Integer> partitions, boolean standby) {
        Map<String, Object> asked = new HashMap<>(body);
        asked.put("partitions", partitions);
        if (standby) {
            asked.put("standby", true);
        }
        return asked;
    }

    /**
     * The instances keeping a copy of partitions of {@code wanted} (a standby replica, or here an
     * active task too), each partition given to one of them only: this instance when it keeps one, so
     * it is read without a call.
     */
    private Map<HostInfo, Set<Integer>> standbys(Set<Integer> wanted, Set<HostInfo> silent) {
        Map<Integer, HostInfo> holder = new TreeMap<>();
        for (StreamsMetadata client : clients.get()) {
            if (silent.contains(client.hostInfo())) {
                continue;
            }
            Set<TopicPartition> copies = new HashSet<>(client.standbyTopicPartitions());
            if (isSelf(client.hostInfo())) {
                // An active task here that did not answer (its thread rebalancing) is read as a copy too.
                copies.addAll(client.topicPartitions());
            }
            for (TopicPartition partition : copies) {
                if (partition.topic().equals(topic) && wanted.contains(partition.partition())) {
                    holder.merge(
                            partition.partition(), client.hostInfo(), (kept, other) -> isSelf(other) ? other : kept);
                }
            }
        }
        Map<HostInfo, Set<Integer>> byHost = new HashMap<>();
        holder.forEach((partition, host) ->
                byHost.computeIfAbsent(host, h -> new TreeSet<>()).add(partition));
        return byHost;
    }

    boolean isSelf(HostInfo host) {
        return host.equals(self);
    }

    /** The instances holding the wanted partitions, with the partitions each holds. */
    Map<HostInfo, Set<Integer>> owners(Set<Integer> wanted) {
        Map<HostInfo, Set<Integer>> byHost = new HashMap<>();
        for (StreamsMetadata client : clients.get()) {
            for (TopicPartition partition : client.topicPartitions()) {
                if (partition.topic().equals(topic) && wanted.contains(partition.partition())) {
                    byHost.computeIfAbsent(client.hostInfo(), h -> new TreeSet<>())
                            .add(partition.partition());
                }
            }
        }
        return byHost;
    }

    /**
     * POSTs {@code body} to another instance; empty when it does not answer (or answers neither 200
     * nor an error of its own). Its 400 or 500 is thrown as that error.
     */
    <T> Optional<T> post(HostInfo host, String path, Object body, Caller caller, Class<T> answer) {
        Optional<Reply> response = client.post(InstanceClient.uri(host, path), caller.credential(), body);
        if (response.isEmpty()) {
            return Optional.empty();
        }
        int status = response.get().status();
        if (status == 400 || status == 500) {
            // The other instance took the request and refused or failed it: an answer, not an absence.
            JsonNode error = errorOf(response.get().body());
            LOG.warn(
                    "remote call refused host={}:{} path={} status={} code={}",
                    host.host(),
                    host.port(),
                    path,
                    status,
                    error.path("code").asText());
            throw new ApiException(
                    status,
                    error.path("code").asText("internal_error"),
                    "instance " + host.host() + ":" + host.port() + ": "
                            + error.path("message").asText(""));
        }
        if (status != 200) {
            LOG.warn("remote call failed host={}:{} path={} status={}", host.host(), host.port(), path, status);
            return Optional.empty();
        }
        try {
            return Optional.of(Json.MAPPER.readValue(response.get().body(), answer));
        } catch (IOException e) {
            LOG.warn(
                    "remote call unreadable host={}:{} path={} error={}", host.host(), host.port(), path, e.toString());
            return Optional.empty();
        }
    }

    private static JsonNode errorOf(byte[] body) {
        try {
            return Json.MAPPER.readTree(body).path("error");
        } catch (IOException e) {
            return Json.MAPPER.createObjectNode();
        }
    }
}
