package io.reme.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
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
final class PartitionFanOut {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionFanOut.class);

    /** The Streams metadata of every instance of the application, read again at each fan-out. */
    private final Supplier<Collection<StreamsMetadata>> clients;

    private final HostInfo self;
    private final String topic;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    PartitionFanOut(KafkaStreams streams, HostInfo self, String topic) {
        this(() -> streams.metadataForAllStreamsClients(), self, topic);
    }

    private PartitionFanOut(Supplier<Collection<StreamsMetadata>> clients, HostInfo self, String topic) {
        this.clients = clients;
        this.self = self;
        this.topic = topic;
    }

    /** A fan-out over given metadata instead of a running application's, for tests. */
    static PartitionFanOut over(Supplier<Collection<StreamsMetadata>> clients, HostInfo self, String topic) {
        return new PartitionFanOut(clients, self, topic);
    }

    /** One instance's part of a fanned-out answer, which says the partitions it answered for. */
    interface Part {
        Set<Integer> answered();
    }

    /** The parts that came back (this instance's and the others'), and the wanted partitions none answered for. */
    record Gathered<P>(List<P> parts, Set<Integer> missing) {}

    /**
     * Asks each instance holding active tasks of the wanted partitions for its part, once: this one by
     * {@code local}, the others by POSTing {@code body} plus {@code "partitions"} (theirs) to
     * {@code path} with the caller's authorization. An instance that does not answer adds no part, and a
     * partition no instance holds (as while a rebalance moves it) is asked of no one: their partitions
     * stay missing. Another instance's 400 or 500 is thrown ({@link #post}).
     */
    <P extends Part> Gathered<P> gather(
            Set<Integer> wanted,
            Function<Set<Integer>, P> local,
            String path,
            Map<String, Object> body,
            String authorization,
            Class<P> answer) {
        return gather(wanted, local, null, path, body, authorization, answer);
    }

    /**
     * As {@link #gather(Set, Function, String, Map, String, Class)}; then the partitions still missing
     * (their owner did not answer: killed, and not yet given up by the group) of which this instance
     * keeps a standby replica are read from it by {@code standby}.
     */
    <P extends Part> Gathered<P> gather(
            Set<Integer> wanted,
            Function<Set<Integer>, P> local,
            Function<Set<Integer>, P> standby,
            String path,
            Map<String, Object> body,
            String authorization,
            Class<P> answer) {
        Set<Integer> missing = new TreeSet<>(wanted);
        List<P> parts = new ArrayList<>();
        for (Map.Entry<HostInfo, Set<Integer>> host : owners(wanted).entrySet()) {
            Optional<P> part;
            if (isSelf(host.getKey())) {
                part = Optional.of(local.apply(host.getValue()));
            } else {
                Map<String, Object> asked = new HashMap<>(body);
                asked.put("partitions", host.getValue());
                part = post(host.getKey(), path, asked, authorization, answer);
            }
            part.ifPresent(p -> {
                parts.add(p);
                missing.removeAll(p.answered());
            });
        }
        Set<Integer> kept = standby == null ? Set.of() : standbys(missing);
        if (!kept.isEmpty()) {
            P part = standby.apply(kept);
            parts.add(part);
            missing.removeAll(part.answered());
            LOG.info("answered from this instance's standby replicas partitions={}", part.answered());
        }
        return new Gathered<>(List.copyOf(parts), missing);
    }

    /** The partitions of {@code wanted} that this instance keeps a standby replica of. */
    private Set<Integer> standbys(Set<Integer> wanted) {
        Set<Integer> kept = new TreeSet<>();
        for (StreamsMetadata client : clients.get()) {
            if (isSelf(client.hostInfo())) {
                for (TopicPartition partition : client.standbyTopicPartitions()) {
                    if (partition.topic().equals(topic) && wanted.contains(partition.partition())) {
                        kept.add(partition.partition());
                    }
                }
            }
        }
        return kept;
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
    <T> Optional<T> post(HostInfo host, String path, Object body, String authorization, Class<T> answer) {
        try {
            return postOnce(host, path, body, authorization, answer);
        } catch (IOException e) {
            if (e instanceof HttpTimeoutException) {
                LOG.warn(
                        "remote call failed host={}:{} path={} error={}", host.host(), host.port(), path, e.toString());
                return Optional.empty();
            }
            // A pooled connection the other side closed (after its error answer, or idle) fails the next call
            // before it is sent: these calls only read, so it is asked once more on a new connection.
            LOG.debug("remote call retried host={}:{} path={} error={}", host.host(), host.port(), path, e.toString());
        }
        try {
            return postOnce(host, path, body, authorization, answer);
        } catch (IOException e) {
            LOG.warn("remote call failed host={}:{} path={} error={}", host.host(), host.port(), path, e.toString());
            return Optional.empty();
        }
    }

    private <T> Optional<T> postOnce(HostInfo host, String path, Object body, String authorization, Class<T> answer)
            throws IOException {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + path))
                    .timeout(Duration.ofSeconds(10))
                    .header("Authorization", authorization)
                    .header(OwnerRouting.FORWARDED_HEADER, self.host() + ":" + self.port())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(Json.MAPPER.writeValueAsBytes(body)))
                    .build();
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() == 400 || response.statusCode() == 500) {
                // The other instance took the request and refused or failed it: an answer, not an absence.
                JsonNode error = errorOf(response.body());
                LOG.warn(
                        "remote call refused host={}:{} path={} status={} code={}",
                        host.host(),
                        host.port(),
                        path,
                        response.statusCode(),
                        error.path("code").asText());
                throw new ApiException(
                        response.statusCode(),
                        error.path("code").asText("internal_error"),
                        "instance " + host.host() + ":" + host.port() + ": "
                                + error.path("message").asText(""));
            }
            if (response.statusCode() != 200) {
                LOG.warn(
                        "remote call failed host={}:{} path={} status={}",
                        host.host(),
                        host.port(),
                        path,
                        response.statusCode());
                return Optional.empty();
            }
            return Optional.of(Json.MAPPER.readValue(response.body(), answer));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
