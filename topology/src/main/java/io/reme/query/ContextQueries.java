package io.reme.query;

import io.reme.message.SafeId;
import io.reme.session.SessionHeader;
import io.reme.session.SessionKey;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** Answers {@code GET /v1/sessions/{session}/context} from the instance that owns the session. */
public final class ContextQueries {
    private final KafkaStreams streams;
    private final OwnerRouting routing;
    private final SessionSettings settings;
    private final String encoding;

    ContextQueries(KafkaStreams streams, OwnerRouting routing, SessionSettings settings, String encoding) {
        this.streams = streams;
        this.routing = routing;
        this.settings = settings;
        this.encoding = encoding;
    }

    /**
     * @param rawQuery empty, {@code window=served} (the default: what fits the model's input) or
     *                 {@code window=all} (every live message, for inspection)
     */
    OwnerRouting.Answer context(
            String tenant, String session, String rawQuery, boolean forwarded, String authorization) {
        String problem = SafeId.problem("session", session);
        if (problem != null) {
            throw new ApiException(400, "invalid_session", problem);
        }
        boolean wholeWindow = wholeWindow(rawQuery);
        SessionKey key = new SessionKey(tenant, session);
        return routing.route(
                SessionStores.HEADERS,
                key.key(),
                "/v1/sessions/" + session + "/context" + (wholeWindow ? "?window=all" : ""),
                forwarded,
                authorization,
                partition -> read(key, partition, wholeWindow));
    }

    static boolean wholeWindow(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty() || rawQuery.equals("window=served")) {
            return false;
        }
        if (rawQuery.equals("window=all")) {
            return true;
        }
        throw new ApiException(
                400,
                "invalid_query",
                "the only parameter is 'window', served (the default) or " + "all; got '" + rawQuery + "'");
    }

    private OwnerRouting.Answer read(SessionKey key, int partition, boolean wholeWindow) {
        ReadOnlyKeyValueStore<String, SessionHeader> headers = streams.store(StoreQueryParameters.fromNameAndType(
                        SessionStores.HEADERS, QueryableStoreTypes.<String, SessionHeader>keyValueStore())
                .withPartition(partition));
        ReadOnlyKeyValueStore<String, StoredMessage> messages = streams.store(StoreQueryParameters.fromNameAndType(
                        SessionStores.MESSAGES, QueryableStoreTypes.<String, StoredMessage>keyValueStore())
                .withPartition(partition));
        ReadOnlyKeyValueStore<String, String> summaries = streams.store(StoreQueryParameters.fromNameAndType(
                        SessionStores.SUMMARIES, QueryableStoreTypes.<String, String>keyValueStore())
                .withPartition(partition));
        Optional<SessionView> view = SessionView.read(
                headers, messages, summaries, key, settings.policyFor(key.tenant()), encoding, wholeWindow);
        return view.map(v -> new OwnerRouting.Answer(200, OwnerRouting.json(v)))
                .orElseGet(() -> OwnerRouting.notFound(
                        "session_not_found", "no session '" + key.session() + "' for this tenant"));
    }
}
