package io.reme.query;

import io.reme.context.ContextPolicy;
import io.reme.message.SafeId;
import io.reme.session.SessionHeader;
import io.reme.session.SessionKey;
import io.reme.session.SessionStores;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** Answers {@code GET /v1/sessions/{session}/context} from the instance that owns the session. */
public final class ContextQueries {
    private final KafkaStreams streams;
    private final OwnerRouting routing;
    /** Each tenant's context window, its policy's over the instance's settings. */
    private final Function<String, ContextPolicy> windows;

    private final String encoding;

    ContextQueries(
            KafkaStreams streams, OwnerRouting routing, Function<String, ContextPolicy> windows, String encoding) {
        this.streams = streams;
        this.routing = routing;
        this.windows = windows;
        this.encoding = encoding;
    }

    /**
     * @param rawQuery empty, or {@code window=served} (the default: what fits the model's input) or
     *                 {@code window=all} (every live message, for inspection), and/or {@code format=openai}
     *                 or {@code format=anthropic} (the messages ready to send, see {@link ReadyContext})
     */
    OwnerRouting.Answer context(
            String tenant, String session, String rawQuery, OwnerRouting.Hop hop, String authorization) {
        String problem = SafeId.problem("session", session);
        if (problem != null) {
            throw new ApiException(400, "invalid_session", problem);
        }
        Request request = Request.parse(rawQuery);
        SessionKey key = new SessionKey(tenant, session);
        // The owner shapes the answer, so the format travels with a forwarded request.
        return routing.routeOrStandby(
                SessionStores.HEADERS,
                key.key(),
                "/v1/sessions/" + session + "/context" + request.query(),
                hop,
                authorization,
                partition -> read(key, partition, request, false),
                partition -> read(key, partition, request, true));
    }

    /** What a context request asks for: the whole window or the served part, in which shape (null: the full view). */
    record Request(boolean wholeWindow, ReadyContext.Format format) {
        static Request parse(String rawQuery) {
            boolean wholeWindow = false;
            ReadyContext.Format format = null;
            Set<String> seen = new HashSet<>();
            for (String pair : rawQuery == null || rawQuery.isEmpty() ? new String[0] : rawQuery.split("&")) {
                int equals = pair.indexOf('=');
                String name = equals < 0 ? pair : pair.substring(0, equals);
                String value = equals < 0 ? "" : pair.substring(equals + 1);
                if (!seen.add(name)) {
                    throw badQuery(rawQuery);
                }
                switch (name) {
                    case "window" -> {
                        if (value.equals("all")) {
                            wholeWindow = true;
                        } else if (!value.equals("served")) {
                            throw badQuery(rawQuery);
                        }
                    }
                    case "format" -> format = ReadyContext.Format.parse(value);
                    default -> throw badQuery(rawQuery);
                }
            }
            return new Request(wholeWindow, format);
        }

        /** The query to forward to the owner: what this request asks beyond the defaults. */
        String query() {
            List<String> parts = new ArrayList<>();
            if (wholeWindow) {
                parts.add("window=all");
            }
            if (format != null) {
                parts.add("format=" + format.wire());
            }
            return parts.isEmpty() ? "" : "?" + String.join("&", parts);
        }

        private static ApiException badQuery(String rawQuery) {
            return new ApiException(
                    400,
                    "invalid_query",
                    "the parameters are 'window' (served, the default, or all) and 'format' (openai or anthropic), "
                            + "each at most once; got '" + rawQuery + "'");
        }
    }

    static boolean wholeWindow(String rawQuery) {
        return Request.parse(rawQuery).wholeWindow();
    }

    /** @param standby read this instance's standby replica of the partition, not an active task */
    private OwnerRouting.Answer read(SessionKey key, int partition, Request request, boolean standby) {
        ReadOnlyKeyValueStore<String, SessionHeader> headers = store(SessionStores.HEADERS, partition, standby);
        ReadOnlyKeyValueStore<String, StoredMessage> messages = store(SessionStores.MESSAGES, partition, standby);
        ReadOnlyKeyValueStore<String, String> summaries = store(SessionStores.SUMMARIES, partition, standby);
        Optional<SessionView> view = SessionView.read(
                headers, messages, summaries, key, windows.apply(key.tenant()), encoding, request.wholeWindow());
        return view.map(v -> new OwnerRouting.Answer(
                        200, OwnerRouting.json(request.format() == null ? v : ReadyContext.of(v, request.format()))))
                .orElseGet(() -> OwnerRouting.notFound(
                        "session_not_found", "no session '" + key.session() + "' for this tenant"));
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(String name, int partition, boolean standby) {
        StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> query = StoreQueryParameters.fromNameAndType(
                        name, QueryableStoreTypes.<String, V>keyValueStore())
                .withPartition(partition);
        return streams.store(standby ? query.enableStaleStores() : query);
    }
}
