package io.reme.query;

import io.reme.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a keyed read from the instance that owns the key's active task: reads locally when that is
 * this instance, otherwise forwards the request once (marked, so a moving assignment answers 503
 * with Retry-After instead of looping). Streams neither running nor rebalancing, an unknown owner or
 * a store that is not queryable are 503 too.
 *
 * <p>When the owner does not answer (killed, not yet given up by the group) and this instance keeps
 * a standby replica of the key's task, a read that offers a standby path is answered from it, marked
 * {@link Answer#standby()}: it may miss what the owner committed last, but the session stays readable
 * from the moment its owner dies instead of after the group's session timeout and a rebalance.
 */
final class OwnerRouting {
    static final String FORWARDED_HEADER = "X-Reme-Forwarded";
    private static final Logger LOG = LoggerFactory.getLogger(OwnerRouting.class);

    private final KafkaStreams streams;
    private final HostInfo self;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    OwnerRouting(KafkaStreams streams, HostInfo self) {
        this.streams = streams;
        this.self = self;
    }

    /**
     * A JSON body with its status, either read here or relayed from the owner.
     *
     * @param standby whether a standby replica answered because the owner did not
     */
    record Answer(int status, byte[] body, String retryAfter, boolean standby) {
        Answer(int status, byte[] body) {
            this(status, body, null, false);
        }

        Answer(int status, byte[] body, String retryAfter) {
            this(status, body, retryAfter, false);
        }

        Answer fromStandby() {
            return new Answer(status, body, retryAfter, true);
        }
    }

    /**
     * @param store a store partitioned like {@code key}
     * @param path the request path, to forward
     * @param local reads the key from the given partition of the local store
     */
    Answer route(
            String store, String key, String path, boolean forwarded, String authorization, IntFunction<Answer> local) {
        return route(store, key, null, path, forwarded, authorization, local);
    }

    /**
     * As {@link #route(String, String, String, boolean, String, IntFunction)}; when the owner does not
     * answer and this instance holds a standby of the key's task, {@code standby} reads it here.
     */
    Answer routeOrStandby(
            String store,
            String key,
            String path,
            boolean forwarded,
            String authorization,
            IntFunction<Answer> local,
            IntFunction<Answer> standby) {
        return route(store, key, null, path, forwarded, authorization, local, standby);
    }

    /** As {@link #route(String, String, String, boolean, String, IntFunction)} for a store partitioned by {@code partitioner}. */
    Answer route(
            String store,
            String key,
            StreamPartitioner<String, Object> partitioner,
            String path,
            boolean forwarded,
            String authorization,
            IntFunction<Answer> local) {
        return route(store, key, partitioner, path, forwarded, authorization, local, null);
    }

    private Answer route(
            String store,
            String key,
            StreamPartitioner<String, Object> partitioner,
            String path,
            boolean forwarded,
            String authorization,
            IntFunction<Answer> local,
            IntFunction<Answer> standby) {
        // A rebalance keeps the tasks that stay where they are (cooperative), so they serve through it:
        // refusing every read while REBALANCING turned a broker failover, which fences a member and
        // rebalances the group, into 10-15 s of 503s for every session (bench cluster).
        KafkaStreams.State state = streams.state();
        if (!state.isRunningOrRebalancing()) {
            throw ApiException.unavailable("streams is " + state + "; try again shortly");
        }
        KeyQueryMetadata owner = partitioner == null
                ? streams.queryMetadataForKey(store, key, new StringSerializer())
                : streams.queryMetadataForKey(store, key, partitioner);
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the owner of this key is not known yet; try again shortly");
        }
        if (owner.activeHost().equals(self)) {
            try {
                return local.apply(owner.partition());
            } catch (InvalidStateStoreException e) {
                throw ApiException.unavailable("the store is not queryable right now: " + e.getMessage());
            }
        }
        if (forwarded) {
            throw ApiException.unavailable("ownership is moving; try again shortly");
        }
        Answer relayed = forward(owner.activeHost(), path, authorization);
        if (relayed != null) {
            return relayed;
        }
        if (standby != null && owner.standbyHosts().contains(self)) {
            try {
                Answer answer = standby.apply(owner.partition()).fromStandby();
                LOG.info(
                        "owner did not answer; served from this instance's standby owner={}:{} partition={}",
                        owner.activeHost().host(),
                        owner.activeHost().port(),
                        owner.partition());
                return answer;
            } catch (InvalidStateStoreException e) {
                LOG.warn("standby not queryable partition={} error={}", owner.partition(), e.getMessage());
            }
        }
        throw ApiException.unavailable("the instance owning this key did not answer; try again shortly");
    }

    /** The owner's answer, or null when it does not answer at all. */
    private Answer forward(HostInfo owner, String path, String authorization) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + owner.host() + ":" + owner.port() + path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", authorization)
                .header(FORWARDED_HEADER, self.host() + ":" + self.port())
                .GET()
                .build();
        try {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(
                    response.statusCode(),
                    response.body(),
                    response.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            LOG.warn("forward failed owner={}:{} error={}", owner.host(), owner.port(), e.toString());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted");
        }
    }

    static byte[] json(Object value) {
        return Json.bytes(value);
    }

    static Answer notFound(String code, String message) {
        return new Answer(404, json(Map.of("error", Map.of("code", code, "message", message))));
    }
}
