package io.reme.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.session.SessionHeader;
import io.reme.session.SessionKey;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers {@code GET /v1/sessions/{session}/context}: reads the session's stores when this instance
 * owns the key's active task, otherwise forwards the request once to the owner. While the owner is
 * unknown or its store is not queryable (rebalance, restore) the answer is 503 with Retry-After.
 */
public final class ContextQueries {
    static final String FORWARDED_HEADER = "X-Reme-Forwarded";
    private static final Logger LOG = LoggerFactory.getLogger(ContextQueries.class);

    private final KafkaStreams streams;
    private final HostInfo self;
    private final SessionSettings settings;
    private final String encoding;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public ContextQueries(KafkaStreams streams, HostInfo self, SessionSettings settings, String encoding) {
        this.streams = streams;
        this.self = self;
        this.settings = settings;
        this.encoding = encoding;
    }

    /** A JSON body with its status, either read here or relayed from the owner. */
    public record Answer(int status, byte[] body) {
    }

    public Answer context(String tenant, String session, boolean forwarded, String authorization) {
        String problem = SafeId.problem("session", session);
        if (problem != null) {
            throw new ApiException(400, "invalid_session", problem);
        }
        SessionKey key = new SessionKey(tenant, session);
        if (streams.state() != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable("streams is " + streams.state() + "; try again shortly");
        }
        KeyQueryMetadata owner = streams.queryMetadataForKey(SessionStores.HEADERS, key.key(), new StringSerializer());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the owner of this session is not known yet; try again shortly");
        }
        if (owner.activeHost().equals(self)) {
            return local(key, owner.partition());
        }
        if (forwarded) {
            throw ApiException.unavailable("ownership of this session is moving; try again shortly");
        }
        return forward(owner.activeHost(), session, authorization);
    }

    private Answer local(SessionKey key, int partition) {
        try {
            ReadOnlyKeyValueStore<String, SessionHeader> headers = streams.store(StoreQueryParameters
                    .fromNameAndType(SessionStores.HEADERS, QueryableStoreTypes.<String, SessionHeader>keyValueStore())
                    .withPartition(partition));
            ReadOnlyKeyValueStore<String, StoredMessage> messages = streams.store(StoreQueryParameters
                    .fromNameAndType(SessionStores.MESSAGES, QueryableStoreTypes.<String, StoredMessage>keyValueStore())
                    .withPartition(partition));
            Optional<SessionView> view = SessionView.read(headers, messages, key,
                    settings.policyFor(key.tenant()), encoding);
            if (view.isEmpty()) {
                return new Answer(404, json(Map.of("error", Map.of("code", "session_not_found",
                        "message", "no session '" + key.session() + "' for this tenant"))));
            }
            return new Answer(200, json(view.get()));
        } catch (InvalidStateStoreException e) {
            throw ApiException.unavailable("the session store is not queryable right now: " + e.getMessage());
        }
    }

    private Answer forward(HostInfo owner, String session, String authorization) {
        URI uri = URI.create("http://" + owner.host() + ":" + owner.port() + "/v1/sessions/" + session + "/context");
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", authorization)
                .header(FORWARDED_HEADER, self.host() + ":" + self.port())
                .GET()
                .build();
        try {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException e) {
            LOG.warn("forward failed owner={}:{} error={}", owner.host(), owner.port(), e.toString());
            throw ApiException.unavailable("the instance owning this session did not answer; try again shortly");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted");
        }
    }

    private static byte[] json(Object value) {
        try {
            return Json.MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
