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
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds which instance holds the active task of each wanted partition of a topic, and asks another
 * instance over HTTP (once, marked as forwarded). A partition no instance holds is simply absent
 * from {@link #owners}; callers report it as missing.
 */
final class PartitionFanOut {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionFanOut.class);

    private final KafkaStreams streams;
    private final HostInfo self;
    private final String topic;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    PartitionFanOut(KafkaStreams streams, HostInfo self, String topic) {
        this.streams = streams;
        this.self = self;
        this.topic = topic;
    }

    boolean isSelf(HostInfo host) {
        return host.equals(self);
    }

    /** The instances holding the wanted partitions, with the partitions each holds. */
    Map<HostInfo, Set<Integer>> owners(Set<Integer> wanted) {
        Map<HostInfo, Set<Integer>> byHost = new HashMap<>();
        for (StreamsMetadata client : streams.metadataForAllStreamsClients()) {
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
