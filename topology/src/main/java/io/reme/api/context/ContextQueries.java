package io.reme.api.context;

import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.QueryString;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.cluster.Reply;
import io.reme.api.cluster.StreamsStores;
import io.reme.context.ContextPolicy;
import io.reme.message.SafeId;
import io.reme.session.SessionHeader;
import io.reme.session.SessionKey;
import io.reme.session.SessionStores;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** Answers {@code GET /v1/sessions/{session}/context} from the instance that owns the session. */
public final class ContextQueries {
    private final StreamsStores streams;
    private final OwnerRouting routing;
    /** Each tenant's context window, its policy's over the instance's settings. */
    private final Function<String, ContextPolicy> windows;

    private final String encoding;

    public ContextQueries(
            StreamsStores streams, OwnerRouting routing, Function<String, ContextPolicy> windows, String encoding) {
        this.streams = streams;
        this.routing = routing;
        this.windows = windows;
        this.encoding = encoding;
    }

    /** @param request what the query string or the tool's arguments ask, bound by {@link Request} */
    public Reply context(Caller caller, String session, Request request, OwnerRouting.Hop hop) {
        String tenant = caller.tenant();
        String problem = SafeId.problem("session", session);
        if (problem != null) {
            throw new ApiException(400, "invalid_session", problem);
        }
        SessionKey key = new SessionKey(tenant, session);
        // The owner shapes the answer, so the format travels with a forwarded request.
        return routing.routeOrStandby(
                SessionStores.HEADERS,
                key.key(),
                "/v1/sessions/" + session + "/context" + request.query(),
                hop,
                caller,
                partition -> read(key, partition, request, false),
                partition -> read(key, partition, request, true));
    }

    /**
     * What a context request asks for: the whole window ({@code window=all}, every live message, for
     * inspection) or the served part ({@code window=served}, the default: what fits the model's input),
     * in which shape ({@code format=openai} or {@code anthropic}, see {@link ReadyContext}; null: the
     * full view).
     */
    public record Request(boolean wholeWindow, ReadyContext.Format format) {
        private static final Set<String> NAMES = Set.of("window", "format");

        /** Binds {@code window} and {@code format}, each at most once and nothing else. */
        public static Request of(QueryString query) {
            for (String name : query.names()) {
                if (!NAMES.contains(name) || query.values(name).size() > 1) {
                    throw badQuery(query.raw());
                }
            }
            String format = query.last("format");
            return new Request(
                    window(query.last("window"), query.raw()),
                    format == null ? null : ReadyContext.Format.parse(format));
        }

        /**
         * @param window served, all, or null for the default
         * @param format openai, anthropic, or null for the full view
         */
        public static Request of(String window, String format) {
            return new Request(
                    window(window, "window=" + window), format == null ? null : ReadyContext.Format.parse(format));
        }

        private static boolean window(String window, String got) {
            if (window == null || window.equals("served")) {
                return false;
            }
            if (!window.equals("all")) {
                throw badQuery(got);
            }
            return true;
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

        private static ApiException badQuery(String got) {
            return new ApiException(
                    400,
                    "invalid_query",
                    "the parameters are 'window' (served, the default, or all) and 'format' (openai or anthropic), "
                            + "each at most once; got '" + got + "'");
        }
    }

    /** @param standby read this instance's standby replica of the partition, not an active task */
    private Reply read(SessionKey key, int partition, Request request, boolean standby) {
        ReadOnlyKeyValueStore<String, SessionHeader> headers = store(SessionStores.HEADERS, partition, standby);
        ReadOnlyKeyValueStore<String, StoredMessage> messages = store(SessionStores.MESSAGES, partition, standby);
        ReadOnlyKeyValueStore<String, String> summaries = store(SessionStores.SUMMARIES, partition, standby);
        Optional<SessionView> view = SessionView.read(
                headers, messages, summaries, key, windows.apply(key.tenant()), encoding, request.wholeWindow());
        return view.map(v -> Reply.json(200, request.format() == null ? v : ReadyContext.of(v, request.format())))
                .orElseGet(() ->
                        Reply.notFound("session_not_found", "no session '" + key.session() + "' for this tenant"));
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(String name, int partition, boolean standby) {
        StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> query = StoreQueryParameters.fromNameAndType(
                        name, QueryableStoreTypes.<String, V>keyValueStore())
                .withPartition(partition);
        return streams.store(standby ? query.enableStaleStores() : query);
    }
}
