package io.reme.api.session;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.QueryString;
import io.reme.api.cluster.Instance;
import io.reme.api.cluster.InstanceCalls;
import io.reme.api.cluster.PartitionFanOut;
import io.reme.api.cluster.StreamsStores;
import io.reme.api.memory.MemoryInput;
import io.reme.context.ContextPolicy;
import io.reme.json.Json;
import io.reme.message.SafeId;
import io.reme.session.SessionCounters;
import io.reme.session.SessionHeader;
import io.reme.session.SessionStores;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/sessions}: the tenant's sessions, newest activity first, read from the session
 * headers of every partition of the input topic (sessions are keyed {@code tenant/session}, so any
 * partition can hold the tenant's). Fans out like the memory listing: each instance scans the
 * tenant's key range of its active header stores and keeps its best {@code limit}; the caller's
 * instance merges. A partition no instance answers for makes the answer partial, never silently short.
 */
public final class SessionListing {
    public static final String INTERNAL_LIST = "/v1/internal/sessions-list";
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;
    private static final Logger LOG = LoggerFactory.getLogger(SessionListing.class);
    /** Newest activity first; equal times by session id, so the order (and a cursor into it) is total. */
    static final Comparator<Entry> ORDER =
            Comparator.comparing(Entry::lastActivity).reversed().thenComparing(Entry::session);

    private final StreamsStores streams;
    private final PartitionFanOut fanOut;
    private final IntSupplier partitions;
    /** Each tenant's context window, its policy's over the instance's settings. */
    private final Function<String, ContextPolicy> windows;

    public SessionListing(
            StreamsStores streams,
            Instance self,
            String inputTopic,
            IntSupplier partitions,
            Function<String, ContextPolicy> windows) {
        this.streams = streams;
        this.fanOut = new PartitionFanOut(streams, self, inputTopic);
        this.partitions = partitions;
        this.windows = windows;
    }

    /**
     * One session as listed. {@code threshold} is the tokens the window (summary and live messages
     * together) may reach before a compaction is planned, so {@code windowUsage} reaches 1 there.
     * {@code compactionFailures} counts compactions that failed or got no result in time.
     */
    public record Entry(
            String session,
            String user,
            Instant lastActivity,
            int liveMessages,
            long liveTokens,
            long summaryTokens,
            long threshold,
            double windowUsage,
            boolean pendingCompaction,
            int summaryVersion,
            long compactionFailures) {}

    /** Where the previous page ended: the last session listed. */
    record Position(Instant lastActivity, String session) {}

    /** What one listing asks, parsed once on the caller's instance and sent as is to the others. */
    public record Query(String tenant, String user, Instant activeSince, int limit, Position after) {
        /** Whether a session belongs on this listing's pages (after the cursor, within the filters). */
        boolean admits(Entry entry) {
            if (user != null && !user.equals(entry.user())) {
                return false;
            }
            if (activeSince != null && entry.lastActivity().isBefore(activeSince)) {
                return false;
            }
            if (after == null) {
                return true;
            }
            int byTime = entry.lastActivity().compareTo(after.lastActivity());
            return byTime < 0 || byTime == 0 && entry.session().compareTo(after.session()) > 0;
        }
    }

    /** One instance's part: its best sessions and which partitions answered. */
    public record Page(List<Entry> sessions, Set<Integer> answered) implements PartitionFanOut.Part {}

    /** The answer to {@code GET /v1/sessions}. */
    record Listing(List<Entry> sessions, String nextCursor, boolean partial, Set<Integer> missingPartitions) {}

    public Listing list(Caller caller, Query query) {
        String tenant = query.tenant();
        Set<Integer> wanted = new TreeSet<>();
        for (int p = 0; p < partitions.getAsInt(); p++) {
            wanted.add(p);
        }
        PartitionFanOut.Gathered<Page> listed = fanOut.gather(
                wanted, owned -> local(query, owned), INTERNAL_LIST, Map.of("query", query), caller, Page.class);
        List<Entry> all = new ArrayList<>();
        listed.parts().forEach(part -> all.addAll(part.sessions()));
        Set<Integer> missing = listed.missing();
        all.sort(ORDER);
        List<Entry> page = all.subList(0, Math.min(query.limit(), all.size()));
        // A full page may have a next one (possibly empty); a short page is the last.
        String next = page.size() == query.limit() ? encodeCursor(page.get(page.size() - 1)) : null;
        if (!missing.isEmpty()) {
            LOG.warn("partial session listing tenant={} missingPartitions={}", tenant, missing);
        }
        return new Listing(List.copyOf(page), next, !missing.isEmpty(), missing);
    }

    /** {@code POST /v1/internal/sessions-list} from another instance: the listing must be for the caller's tenant. */
    public Page internal(String tenant, JsonNode body) {
        Query query;
        try {
            query = Json.MAPPER.treeToValue(InstanceCalls.query(body), Query.class);
        } catch (IOException | IllegalArgumentException e) {
            throw new ApiException(400, "invalid_query", InstanceCalls.problem(e));
        }
        if (query == null || !tenant.equals(query.tenant())) {
            throw new ApiException(403, "tenant_mismatch", "the listing names another tenant than the API key");
        }
        Set<Integer> wanted = new TreeSet<>();
        body.path("partitions").forEach(p -> wanted.add(p.asInt()));
        return local(query, wanted);
    }

    /** Scans the tenant's key range in each wanted partition's active header store on this instance. */
    private Page local(Query query, Set<Integer> wanted) {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return new Page(List.of(), Set.of());
        }
        List<Entry> found = new ArrayList<>();
        Set<Integer> answered = new TreeSet<>();
        ContextPolicy window = windows.apply(query.tenant());
        for (int partition : wanted) {
            List<Entry> inPartition = new ArrayList<>();
            try {
                ReadOnlyKeyValueStore<String, SessionHeader> headers =
                        streams.store(StoreQueryParameters.fromNameAndType(
                                        SessionStores.HEADERS,
                                        QueryableStoreTypes.<String, SessionHeader>keyValueStore())
                                .withPartition(partition));
                try (KeyValueIterator<String, SessionHeader> it =
                        headers.prefixScan(query.tenant() + "/", new StringSerializer())) {
                    while (it.hasNext()) {
                        Entry entry = entry(it.next().value, window);
                        if (query.admits(entry)) {
                            inPartition.add(entry);
                        }
                    }
                }
            } catch (InvalidStateStoreException e) {
                // Not active here (any more): the partition stays missing unless another instance answers it.
                LOG.debug("session headers not queryable partition={} error={}", partition, e.toString());
                continue;
            }
            found.addAll(inPartition);
            answered.add(partition);
        }
        found.sort(ORDER);
        return new Page(List.copyOf(found.subList(0, Math.min(query.limit(), found.size()))), answered);
    }

    private Entry entry(SessionHeader header, ContextPolicy policy) {
        long threshold = policy.threshold(0);
        long window = header.messageTokens() + header.summaryTokens();
        Map<SessionCounters.Counter, Long> counters = header.counters().values();
        long failures = counters.getOrDefault(SessionCounters.Counter.COMPACTIONS_FAILED, 0L)
                + counters.getOrDefault(SessionCounters.Counter.COMPACTIONS_TIMED_OUT, 0L);
        Instant lastActivity = header.lastActiveMs() > 0
                ? Instant.ofEpochMilli(header.lastActiveMs())
                : header.lastMessageAt() != null ? header.lastMessageAt() : Instant.EPOCH;
        return new Entry(
                header.session(),
                header.user(),
                lastActivity,
                header.liveCount(),
                header.messageTokens(),
                header.summaryTokens(),
                threshold,
                threshold <= 0 ? 1.0 : (double) window / threshold,
                header.pending() != null,
                header.summaryVersion(),
                failures);
    }

    // ---- the query and the cursor -----------------------------------------------------------

    /** Binds {@code GET /v1/sessions?user=&active_since=&cursor=&limit=}; a repeated parameter's last value wins. */
    public static Query parse(String tenant, QueryString params) {
        String user = null;
        Instant activeSince = null;
        int limit = DEFAULT_LIMIT;
        Position after = null;
        for (String name : params.names()) {
            for (String value : params.values(name)) {
                switch (name) {
                    case "user" -> {
                        String problem = SafeId.problem("user", value);
                        if (problem != null) {
                            throw invalid("'user': " + problem);
                        }
                        user = value;
                    }
                    case "active_since" -> activeSince = MemoryInput.instant("invalid_query", "active_since", value);
                    case "limit" -> limit = limit(value);
                    case "cursor" -> after = decodeCursor(value);
                    default -> throw invalid("unknown parameter '" + name + "'; use user, active_since, cursor, limit");
                }
            }
        }
        return new Query(tenant, user, activeSince, limit, after);
    }

    private static int limit(String value) {
        int limit;
        try {
            limit = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw invalid("'limit' must be a number (got '" + value + "')");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw invalid("'limit' must be in [1, " + MAX_LIMIT + "] (got " + limit + ")");
        }
        return limit;
    }

    static String encodeCursor(Entry last) {
        try {
            return Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(Json.MAPPER.writeValueAsBytes(new Position(last.lastActivity(), last.session())));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Position decodeCursor(String cursor) {
        Position position;
        try {
            position = Json.MAPPER.readValue(Base64.getUrlDecoder().decode(cursor), Position.class);
        } catch (IOException | IllegalArgumentException e) {
            throw invalid("'cursor' is not a cursor this API returned");
        }
        if (position == null || position.lastActivity() == null || position.session() == null) {
            throw invalid("'cursor' is not a cursor this API returned");
        }
        return position;
    }

    private static ApiException invalid(String message) {
        return new ApiException(400, "invalid_query", message);
    }
}
