package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.BodyBinder;
import io.reme.api.Caller;
import io.reme.api.cluster.Instance;
import io.reme.api.cluster.InstanceCalls;
import io.reme.api.cluster.PartitionFanOut;
import io.reme.api.cluster.StoreLags;
import io.reme.api.cluster.StreamsStores;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.ProfileModels;
import io.reme.indexstore.EmbeddingState;
import io.reme.indexstore.MemoryIndexUpdater;
import io.reme.indexstore.MemoryPartitioning;
import io.reme.indexstore.MemorySearch;
import io.reme.json.Json;
import io.reme.search.FusionMode;
import io.reme.search.Hit;
import io.reme.search.MemoryType;
import io.reme.search.PartitionMerge;
import io.reme.search.Retrieval;
import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import io.reme.trace.RecordTracing;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/search}: embeds the query once (and each question of one that asks several, see
 * {@link #search(Caller, SearchRequest)}), asks only the partitions that can hold the
 * tenant's memories (locally through interactive queries, on other instances through one internal
 * call per instance), and merges the hits. A partition that cannot answer (not hosted, moving) makes
 * the result {@code partial} with its number listed, never silently short; an index that takes the
 * query and fails it is an error (500 {@code search_failed}), not a partial answer. The tenant is
 * always the token's.
 */
public final class SearchQueries {
    public static final String INTERNAL_PATH = "/v1/internal/search";
    private static final Logger LOG = LoggerFactory.getLogger(SearchQueries.class);
    /** How long the embedding profiles of the local indexes are taken as known. */
    private static final long PROFILES_EVERY_NANOS = 1_000_000_000L;

    private final StreamsStores streams;
    private final PartitionFanOut fanOut;
    private final StoreLags lags;
    private final int partitions;
    private final MemoryPartitioning partitioning;
    private final EmbeddingModel embeddings;
    private final QueryLimits limits;
    private final ProfileModels profiles;
    private final RecordTracing tracing;
    private final String memoriesTopic;
    /** The profiles of this instance's indexes other than the configured one, and when they were read. */
    private volatile Set<String> olderProfiles = Set.of();

    private volatile long olderProfilesAt = System.nanoTime() - PROFILES_EVERY_NANOS;

    SearchQueries(
            StreamsStores streams,
            Instance self,
            String memoriesTopic,
            int partitions,
            MemoryPartitioning partitioning,
            EmbeddingModel embeddings,
            QueryLimits limits,
            StoreLags lags) {
        this(streams, self, memoriesTopic, partitions, partitioning, embeddings, limits, lags, null, RecordTracing.OFF);
    }

    /**
     * @param profiles the models of the embedding profiles indexes not switched yet search with (null: none)
     * @param tracing a search made in a trace in a span of its own ({@code search_memory})
     */
    public SearchQueries(
            StreamsStores streams,
            Instance self,
            String memoriesTopic,
            int partitions,
            MemoryPartitioning partitioning,
            EmbeddingModel embeddings,
            QueryLimits limits,
            StoreLags lags,
            ProfileModels profiles,
            RecordTracing tracing) {
        this.profiles = profiles;
        this.tracing = tracing;
        this.memoriesTopic = memoriesTopic;
        this.streams = streams;
        this.lags = lags;
        this.limits = limits;
        this.fanOut = new PartitionFanOut(streams, self, memoriesTopic);
        this.partitions = partitions;
        this.partitioning = partitioning;
        this.embeddings = embeddings;
    }

    /** The answer to one search across partitions. */
    public record Answer(
            List<Hit> hits, boolean partial, Set<Integer> missingPartitions, Map<String, Object> timings) {}

    /** A search whose body is already parsed: a worker's lookup of similar memories ({@link SearchMemoryLookup}). */
    Answer search(Caller caller, JsonNode body) {
        return search(caller, BodyBinder.bind(body, SearchRequest.class, SearchRequest.INVALID));
    }

    /**
     * {@code POST /v1/search} and the {@code search_memory} tool: the retrieval the body names, a client's
     * ({@link Retrieval#CLIENT}) unless it names the workers' {@code lookup}.
     */
    public Answer search(Caller caller, SearchRequest body) {
        return tracing.memoryOperation(
                "search_memory",
                memoriesTopic,
                caller.tenant(),
                () -> search(body.strategy(), caller, body),
                answer -> answer.hits().size());
    }

    /** {@code body}'s search under {@code retrieval}: each of its texts parsed and embedded once, then searched. */
    Answer search(Retrieval retrieval, Caller caller, SearchRequest body) {
        long start = System.nanoTime();
        List<SearchQuery> queries = parse(retrieval, caller.tenant(), body);
        return search(retrieval, queries, caller, start, System.nanoTime());
    }

    /**
     * The queries {@code retrieval} searches {@code body} as (its {@link Retrieval#texts}), each checked and
     * embedded: the first is the body's own.
     */
    List<SearchQuery> parse(Retrieval retrieval, String tenant, SearchRequest body) {
        List<SearchQuery> queries = new ArrayList<>();
        for (String text : retrieval.texts(body.query())) {
            queries.add(parse(tenant, queries.isEmpty() ? body : body.withQuery(text)));
        }
        return List.copyOf(queries);
    }

    /**
     * Searches {@code queries} (as {@link #parse(Retrieval, String, SearchRequest)} gave them, maybe narrowed
     * alike) each {@link Retrieval#depth} deep and merges their lists as {@code retrieval} says, to the first
     * query's k. The answer is partial when any list missed a partition.
     */
    Answer search(Retrieval retrieval, List<SearchQuery> queries, Caller caller, long start, long embedded) {
        int k = queries.get(0).k();
        List<String> texts = new ArrayList<>();
        List<List<Hit>> lists = new ArrayList<>();
        Set<Integer> missing = new TreeSet<>();
        for (SearchQuery query : queries) {
            Answer answer = fanOut(query.withK(retrieval.depth(k)).withBreadth(retrieval.breadth(k)), caller);
            texts.add(query.text());
            lists.add(answer.hits());
            missing.addAll(answer.missingPartitions());
        }
        Map<String, Object> timings = new LinkedHashMap<>();
        timings.put("embedMs", (embedded - start) / 1e6);
        timings.put("searchMs", (System.nanoTime() - embedded) / 1e6);
        timings.put("totalMs", (System.nanoTime() - start) / 1e6);
        if (queries.size() > 1) {
            timings.put("questions", queries.size() - 1);
        }
        return new Answer(retrieval.merge(texts, lists, k), !missing.isEmpty(), missing, timings);
    }

    /**
     * One query asked of the partitions that may hold its tenant's memories, here and on the other instances:
     * its hits (one partition's answer is final; several partitions send their candidates, fused here once) and
     * the partitions that did not answer. No timings.
     */
    private Answer fanOut(SearchQuery query, Caller caller) {
        Set<Integer> wanted = partitioning.partitionsOf(query.tenant(), partitions);
        boolean candidates = wanted.size() > 1;
        PartitionFanOut.Gathered<PartitionHits> gathered = fanOut.gather(
                wanted,
                mine -> local(query, mine, candidates),
                kept -> standby(query, kept, candidates),
                INTERNAL_PATH,
                Map.of("query", query, "candidates", candidates),
                caller,
                PartitionHits.class);
        List<Hit> hits = new ArrayList<>();
        gathered.parts().forEach(part -> hits.addAll(part.hits()));
        Set<Integer> missing = gathered.missing();
        if (!missing.isEmpty()) {
            LOG.warn("partial search tenant={} missingPartitions={}", query.tenant(), missing);
        }
        return new Answer(candidates ? PartitionMerge.merge(hits, query) : hits, !missing.isEmpty(), missing, Map.of());
    }

    /** Hits of some partitions, and which partitions answered. */
    public record PartitionHits(List<Hit> hits, Set<Integer> answered) implements PartitionFanOut.Part {}

    /** Runs the search on this instance's active tasks for {@code wanted}: their top k, or all their candidates. */
    PartitionHits local(SearchQuery query, Set<Integer> wanted, boolean candidates) {
        return query(query, wanted, candidates, true);
    }

    /**
     * Runs the search on this instance's standby replicas of {@code kept}, whose owner could not answer:
     * they hold what the owner committed, up to the moment they last caught up.
     */
    private PartitionHits standby(SearchQuery query, Set<Integer> kept, boolean candidates) {
        // A copy rebuilding from the topic would answer with memories missing: it stays missing instead.
        Set<Integer> current = new TreeSet<>();
        for (int partition : kept) {
            if (lags.fresh(MemoryIndexUpdater.STORE, partition)) {
                current.add(partition);
            }
        }
        return current.isEmpty() ? new PartitionHits(List.of(), Set.of()) : query(query, current, candidates, false);
    }

    private PartitionHits query(SearchQuery query, Set<Integer> wanted, boolean candidates, boolean active) {
        // As context reads: the tasks that stay through a rebalance keep answering.
        if (!streams.state().isRunningOrRebalancing()) {
            return new PartitionHits(List.of(), Set.of());
        }
        StateQueryRequest<SearchResult> request = StateQueryRequest.inStore(MemoryIndexUpdater.STORE)
                .withQuery(new MemorySearch(query, candidates))
                .withPartitions(wanted);
        StateQueryResult<SearchResult> result = streams.query(active ? request.requireActive() : request);
        return collect(query, result.getPartitionResults());
    }

    /**
     * The hits of the partitions that answered. A partition not active here is left out (the caller
     * reports it missing); one whose index failed the search fails the whole search.
     */
    static PartitionHits collect(SearchQuery query, Map<Integer, QueryResult<SearchResult>> results) {
        List<Hit> hits = new ArrayList<>();
        Set<Integer> answered = new TreeSet<>();
        for (Map.Entry<Integer, QueryResult<SearchResult>> partition : results.entrySet()) {
            QueryResult<SearchResult> answer = partition.getValue();
            if (answer.isSuccess()) {
                hits.addAll(answer.getResult().hits());
                answered.add(partition.getKey());
            } else if (answer.getFailureReason() == FailureReason.STORE_EXCEPTION) {
                // The index took the query and failed: asking again will not help, and the other
                // partitions would fail alike. Not a partition that is away, so never "partial".
                LOG.error(
                        "search failed in the index tenant={} partition={} reason={}",
                        query.tenant(),
                        partition.getKey(),
                        answer.getFailureMessage());
                throw new ApiException(
                        500,
                        "search_failed",
                        "the memory index of partition " + partition.getKey() + " failed the search: "
                                + answer.getFailureMessage());
            }
        }
        return new PartitionHits(hits, answered);
    }

    /**
     * {@code POST /v1/internal/search} from another instance: the query must be for the caller's tenant.
     * With {@code "standby": true} it is answered from this instance's standby replicas.
     */
    public PartitionHits internal(String tenant, JsonNode body) {
        try {
            SearchQuery query = Json.MAPPER.treeToValue(InstanceCalls.query(body), SearchQuery.class);
            Set<Integer> wanted = new TreeSet<>();
            body.path("partitions").forEach(p -> wanted.add(p.asInt()));
            if (!tenant.equals(query.tenant())) {
                throw new ApiException(403, "tenant_mismatch", "the query names another tenant than the API key");
            }
            limits.check(query.text());
            wanted.retainAll(partitioning.partitionsOf(tenant, partitions));
            boolean candidates = body.path("candidates").asBoolean(false);
            // Asked as a standby: the partitions' owner could not answer (see PartitionFanOut#gather).
            return body.path("standby").asBoolean(false)
                    ? standby(query, wanted, candidates)
                    : local(query, wanted, candidates);
        } catch (IOException | IllegalArgumentException e) {
            throw new ApiException(400, "invalid_query", InstanceCalls.problem(e));
        }
    }

    /**
     * The embedding profiles this instance's indexes search with other than the configured one: not switched yet
     * during a change of model. Read at most once a second, from the local stores.
     */
    private Set<String> olderProfiles() {
        long now = System.nanoTime();
        if (now - olderProfilesAt < PROFILES_EVERY_NANOS) {
            return olderProfiles;
        }
        olderProfilesAt = now;
        Set<String> older = new TreeSet<>();
        if (streams.state().isRunningOrRebalancing()) {
            StateQueryResult<String> result = streams.query(
                    StateQueryRequest.inStore(MemoryIndexUpdater.STORE).withQuery(new EmbeddingState()));
            for (QueryResult<String> partition : result.getPartitionResults().values()) {
                if (partition.isSuccess()
                        && !partition.getResult().isEmpty()
                        && !partition.getResult().equals(embeddings.profile())) {
                    older.add(partition.getResult());
                }
            }
        }
        olderProfiles = Set.copyOf(older);
        return olderProfiles;
    }

    /** The query of a {@code /v1/search} body already parsed (a tool's arguments, a retrieval's search). */
    SearchQuery parse(String tenant, JsonNode body) {
        return parse(tenant, BodyBinder.bind(body, SearchRequest.class, SearchRequest.INVALID));
    }

    /**
     * The query of a {@code /v1/search} body, its text embedded (once) when a model is configured.
     * Every parameter is checked before the text is embedded; a bad one is a 400 that names it.
     */
    SearchQuery parse(String tenant, SearchRequest body) {
        String text = body.query();
        limits.check(text);
        int k = body.k() == null ? SearchQuery.DEFAULT_K : body.k();
        double minScore = body.minScore() == null ? 0 : body.minScore();
        FusionMode fusion = body.fusion() == null ? null : fusion(body.fusion());
        Set<MemoryType> types = enums(body.types());
        Set<String> users = strings(body.users());
        Set<String> sessions = strings(body.sessions());
        Set<String> targets = strings(body.targets());
        Instant from = MemoryInput.instant(SearchRequest.INVALID, "from", body.from());
        Instant to = MemoryInput.instant(SearchRequest.INVALID, "to", body.to());
        if (from != null && to != null && !from.isBefore(to)) {
            throw invalid("'from' must be before 'to' (got " + from + " and " + to + ")");
        }
        float[] vector = null;
        Map<String, SearchQuery.ProfileVector> byProfile = Map.of();
        // The model of the query's language: its vectors are compared with the memories that model embedded.
        EmbeddingModel model = embeddings == null ? null : embeddings.modelFor(text);
        if (model != null) {
            try {
                Set<String> older = profiles == null ? Set.of() : olderProfiles();
                if (older.isEmpty()) {
                    vector = model.embedQuery(text);
                } else {
                    // A change of model under way: each index takes the vector of the profile it searches with.
                    byProfile = profiles.embedQuery(text, older);
                    vector = byProfile.get(embeddings.profile()).vector();
                }
            } catch (EmbeddingException e) {
                // Text search still answers; the vector half of this one query is lost, nothing else.
                LOG.warn("query embedding failed, searching text only error={}", e.getMessage());
            }
        }
        try {
            return new SearchQuery(
                    tenant,
                    text,
                    vector == null
                            ? null
                            : new SearchQuery.Vector(vector, model.id(), byProfile.size() < 2 ? Map.of() : byProfile),
                    new SearchQuery.Filter(types, users, sessions, from, to, targets),
                    new SearchQuery.Ranking(k, 0, minScore, fusion));
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    private static ApiException invalid(String message) {
        return new ApiException(400, "invalid_query", message);
    }

    private static FusionMode fusion(String value) {
        try {
            return FusionMode.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("'fusion' must be rank_and_score, rrf or weighted (got '" + value + "')");
        }
    }

    private static Set<MemoryType> enums(List<String> values) {
        Set<MemoryType> types = new LinkedHashSet<>();
        for (String value : strings(values)) {
            try {
                types.add(MemoryType.valueOf(value.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw invalid("'types' holds an unknown memory type '" + value + "'; use personal, procedural, "
                        + "tool, diary_chunk or dialog_chunk");
            }
        }
        return types;
    }

    /** Absent is none; a null in the array is refused like any other non-string. */
    private static Set<String> strings(List<String> values) {
        return values == null ? new LinkedHashSet<>() : new LinkedHashSet<>(values);
    }
}
