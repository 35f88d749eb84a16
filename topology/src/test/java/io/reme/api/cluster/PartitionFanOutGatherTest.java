package io.reme.api.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.Callers;
import io.reme.http.HttpSettings;
import io.reme.http.WebServer;
import io.reme.json.Json;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The fan-out as the listings and the count use it: which instance is asked for which partitions, how
 * the parts come back, and what is missing when an owner fails or a partition has none.
 */
class PartitionFanOutGatherTest {
    private static final String TOPIC = "reme.memories";
    private static final HostInfo SELF = new HostInfo("127.0.0.1", 1);

    /** A part as the tests' instances send it: one item per partition answered. */
    record Found(List<String> items, Set<Integer> answered) implements PartitionFanOut.Part {}

    /** What another instance was asked. */
    record Asked(String authorization, String forwarded, JsonNode body) {}

    @Test
    void eachOwnerIsAskedOnceForItsActivePartitionsAndWhatNoOneAnswersIsMissing() throws Exception {
        List<Asked> asked = new CopyOnWriteArrayList<>();
        // An owner the metadata still names but that is gone (a rebalance not yet noticed): nothing listens.
        HostInfo gone = nothingListens();
        WebServer remote = remote(asked, 200, null);
        try {
            HostInfo other = new HostInfo("127.0.0.1", remote.port());
            List<StreamsMetadata> clients = List.of(
                    // Partition 5 of another topic and a standby of 2 are not this fan-out's.
                    new Client(SELF, Set.of(tp(TOPIC, 0), tp(TOPIC, 1), tp("reme.other", 5)), Set.of(tp(TOPIC, 2))),
                    // 6 is not wanted; 3 is the other's but "moving": it does not answer for it.
                    new Client(other, Set.of(tp(TOPIC, 2), tp(TOPIC, 3), tp(TOPIC, 6)), Set.of()),
                    new Client(gone, Set.of(tp(TOPIC, 4)), Set.of()));
            PartitionFanOut fanOut = PartitionFanOut.over(() -> clients, new Instance(SELF, null), TOPIC);
            List<Set<Integer>> localCalls = new ArrayList<>();

            PartitionFanOut.Gathered<Found> gathered = fanOut.gather(
                    Set.of(0, 1, 2, 3, 4, 5),
                    partitions -> {
                        localCalls.add(partitions);
                        return found("local", partitions);
                    },
                    "/v1/internal/x",
                    Map.of("query", Map.of("tenant", "acme")),
                    Callers.ACME,
                    Found.class);

            assertEquals(List.of(Set.of(0, 1)), localCalls, "this instance reads its own partitions directly");
            assertEquals(1, asked.size(), "the other instance is asked once");
            Asked call = asked.get(0);
            assertEquals("Bearer k", call.authorization());
            assertEquals("127.0.0.1:1", call.forwarded());
            assertEquals("acme", call.body().path("query").path("tenant").asText(), "the body is sent as given");
            Set<Integer> partitionsAsked = new TreeSet<>();
            call.body().path("partitions").forEach(p -> partitionsAsked.add(p.asInt()));
            assertEquals(Set.of(2, 3), partitionsAsked, "only its active partitions among the wanted");
            // Merged: both parts, nothing from the instance that is gone.
            Set<String> items = gathered.parts().stream()
                    .flatMap(part -> part.items().stream())
                    .collect(Collectors.toSet());
            assertEquals(Set.of("local-0", "local-1", "remote-2"), items);
            assertEquals(2, gathered.parts().size());
            // 3: its owner did not answer for it; 4: its owner is gone; 5: no owner at all.
            assertEquals(Set.of(3, 4, 5), gathered.missing());
        } finally {
            remote.close();
        }
    }

    @Test
    void partitionsNoOwnerAnsweredAreReadFromStandbysHereFirstThenAskedOfOthersAsStandbys() throws Exception {
        List<Asked> asked = new CopyOnWriteArrayList<>();
        HostInfo gone = nothingListens();
        WebServer remote = remote(asked, 200, null);
        try {
            HostInfo other = new HostInfo("127.0.0.1", remote.port());
            List<StreamsMetadata> clients = List.of(
                    new Client(SELF, Set.of(tp(TOPIC, 0)), Set.of(tp(TOPIC, 1))),
                    // The dead owner of 1, 2 and 5 keeps a standby of 2 in the metadata: not asked again.
                    new Client(gone, Set.of(tp(TOPIC, 1), tp(TOPIC, 2), tp(TOPIC, 5)), Set.of(tp(TOPIC, 2))),
                    // A standby of 1 too, but this instance's is read first; 5 has no standby anywhere.
                    new Client(other, Set.of(), Set.of(tp(TOPIC, 1), tp(TOPIC, 2))));
            PartitionFanOut fanOut = PartitionFanOut.over(() -> clients, new Instance(SELF, null), TOPIC);
            List<Set<Integer>> standbyCalls = new ArrayList<>();

            PartitionFanOut.Gathered<Found> gathered = fanOut.gather(
                    Set.of(0, 1, 2, 5),
                    partitions -> found("local", partitions),
                    partitions -> {
                        standbyCalls.add(partitions);
                        return found("standby", partitions);
                    },
                    "/v1/internal/x",
                    Map.of("query", Map.of("tenant", "acme")),
                    Callers.ACME,
                    Found.class);

            assertEquals(List.of(Set.of(1)), standbyCalls);
            assertEquals(1, asked.size(), "only the live holder is asked, once: " + asked);
            JsonNode body = asked.get(0).body();
            List<Integer> partitionsAsked = new ArrayList<>();
            body.path("partitions").forEach(p -> partitionsAsked.add(p.asInt()));
            assertEquals(List.of(2), partitionsAsked);
            assertEquals(true, body.path("standby").asBoolean(false), "asked as a standby");
            assertEquals(Set.of(5), gathered.missing());
            assertEquals(
                    Set.of("local-0", "standby-1", "remote-2"),
                    gathered.parts().stream()
                            .flatMap(part -> part.items().stream())
                            .collect(Collectors.toSet()));
        } finally {
            remote.close();
        }
    }

    @Test
    void anOwnersErrorIsThrownNotCountedAsMissing() throws Exception {
        WebServer remote = remote(
                new CopyOnWriteArrayList<>(), 500, "{\"error\":{\"code\":\"search_failed\",\"message\":\"boom\"}}");
        try {
            HostInfo other = new HostInfo("127.0.0.1", remote.port());
            List<StreamsMetadata> clients = List.of(
                    new Client(SELF, Set.of(tp(TOPIC, 0)), Set.of()),
                    new Client(other, Set.of(tp(TOPIC, 1)), Set.of()));
            PartitionFanOut fanOut = PartitionFanOut.over(() -> clients, new Instance(SELF, null), TOPIC);
            ApiException failed = assertThrows(
                    ApiException.class,
                    () -> fanOut.gather(
                            Set.of(0, 1),
                            p -> found("local", p),
                            "/v1/internal/x",
                            Map.of(),
                            Callers.ACME,
                            Found.class));
            assertEquals(500, failed.status());
            assertEquals("search_failed", failed.code());
        } finally {
            remote.close();
        }
    }

    @Test
    void noOwnerAtAllAsksNoOneAndEverythingIsMissing() {
        PartitionFanOut fanOut = PartitionFanOut.over(List::of, new Instance(SELF, null), TOPIC);
        AtomicInteger localCalls = new AtomicInteger();
        PartitionFanOut.Gathered<Found> gathered = fanOut.gather(
                Set.of(0, 1),
                p -> {
                    localCalls.incrementAndGet();
                    return found("local", p);
                },
                "/v1/internal/x",
                Map.of(),
                Callers.ACME,
                Found.class);
        assertEquals(0, localCalls.get());
        assertEquals(List.of(), gathered.parts());
        assertEquals(Set.of(0, 1), gathered.missing());
    }

    private static HostInfo nothingListens() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            return new HostInfo("127.0.0.1", free.getLocalPort());
        }
    }

    private static Found found(String who, Set<Integer> partitions) {
        return new Found(partitions.stream().map(p -> who + "-" + p).toList(), partitions);
    }

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    /**
     * Another instance: records each call and answers {@code status}, with {@code error} as the body, or
     * on 200 a part for the partitions asked, except 3, which it says it did not answer for.
     */
    private static WebServer remote(List<Asked> asked, int status, String error) throws Exception {
        WebServer server = WebServer.bind("remote-test", "127.0.0.1", 0, HttpSettings.DEFAULT);
        server.start(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                JsonNode body = Json.MAPPER.readTree(Content.Source.asString(request, StandardCharsets.UTF_8));
                asked.add(new Asked(
                        request.getHeaders().get(HttpHeader.AUTHORIZATION),
                        request.getHeaders().get(OwnerRouting.FORWARDED_HEADER),
                        body));
                Set<Integer> partitions = new TreeSet<>();
                body.path("partitions").forEach(p -> partitions.add(p.asInt()));
                partitions.remove(3);
                String answer = status == 200 ? Json.MAPPER.writeValueAsString(found("remote", partitions)) : error;
                response.setStatus(status);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        return server;
    }

    /** The metadata of one instance: its host, active and standby partitions. */
    private record Client(HostInfo hostInfo, Set<TopicPartition> topicPartitions, Set<TopicPartition> standbys)
            implements StreamsMetadata {
        @Override
        public Set<String> stateStoreNames() {
            return Set.of("memory-index");
        }

        @Override
        public Set<TopicPartition> standbyTopicPartitions() {
            return standbys;
        }

        @Override
        public Set<String> standbyStateStoreNames() {
            return standbys.isEmpty() ? Set.of() : Set.of("memory-index");
        }

        @Override
        public String host() {
            return hostInfo.host();
        }

        @Override
        public int port() {
            return hostInfo.port();
        }
    }
}
