package io.reme.api.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.BodyBinder;
import io.reme.api.Caller;
import io.reme.api.cluster.Instance;
import io.reme.api.cluster.InstanceCalls;
import io.reme.api.cluster.OwnerRouting;
import io.reme.api.cluster.PartitionFanOut;
import io.reme.api.cluster.Reply;
import io.reme.api.cluster.StreamsStores;
import io.reme.api.tenant.TenantDirectory;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.indexstore.MemoryCount;
import io.reme.indexstore.MemoryGet;
import io.reme.indexstore.MemoryIndexUpdater;
import io.reme.indexstore.MemoryList;
import io.reme.indexstore.MemoryProgress;
import io.reme.json.Json;
import io.reme.retry.Poll;
import io.reme.search.MemoryEmbedding;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryListQuery;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.worker.MemoryQuota;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory endpoints: add, read, edit, delete and list a tenant's memories. Reads by id go to
 * the instance owning the memory's partition; listings fan out to the partitions that can hold the
 * tenant's memories. A write goes straight to the {@code memories} topic and is answered once the
 * owning index has applied its offset (read-your-writes for every later read on every instance, since
 * every read is served by that index); if that takes longer than the visibility timeout the answer is
 * 202 with {@code "visible": false}. The tenant is always the token's: another tenant's id is 404.
 */
public final class MemoryQueries {
    public static final String INTERNAL_GET = "/v1/internal/memories/";
    public static final String INTERNAL_LIST = "/v1/internal/memories-list";
    public static final String INTERNAL_PROGRESS = "/v1/internal/memories-progress/";
    private static final Logger LOG = LoggerFactory.getLogger(MemoryQueries.class);
    private static final Duration VISIBILITY_POLL = Duration.ofMillis(10);

    private final StreamsStores streams;
    private final OwnerRouting routing;
    private final PartitionFanOut fanOut;
    private final MemoryWriter writer;
    private final EmbeddingModel embeddings;
    private final Duration visibilityTimeout;
    /** Where a tenant's {@code maxMemories} comes from; null for no limit. */
    private final TenantDirectory tenants;

    /** @param tenants the tenants' policies, whose {@code maxMemories} a create is held to; null for none */
    public MemoryQueries(
            StreamsStores streams,
            OwnerRouting routing,
            Instance self,
            String memoriesTopic,
            MemoryWriter writer,
            EmbeddingModel embeddings,
            Duration visibilityTimeout,
            TenantDirectory tenants) {
        this.streams = streams;
        this.routing = routing;
        this.fanOut = new PartitionFanOut(streams, self, memoriesTopic);
        this.writer = writer;
        this.embeddings = embeddings;
        this.visibilityTimeout = visibilityTimeout;
        this.tenants = tenants;
    }

    /** The answer to a write: the memory as written and whether reads already see it. */
    public record Written(String id, long version, boolean visible, MemoryView memory) {}

    /** The answer to a delete: whether reads already miss the memory. */
    public record Deleted(String id, boolean deleted, boolean visible) {}

    // ---- writes -----------------------------------------------------------------------------------

    /** A tool's arguments, bound as the route's body is. */
    public Written create(Caller caller, JsonNode body) {
        return create(caller, BodyBinder.bind(body, MemoryCreate.class, MemoryCreate.INVALID));
    }

    public Written create(Caller caller, MemoryCreate body) {
        String tenant = caller.tenant();
        MemoryType type = body.memoryType();
        String content = body.text();
        String user = body.user();
        String session = body.session();
        String target = body.memoryTarget();
        Instant now = Instant.now();
        // Generated once and never derived from the content, so edits keep it.
        String id = UUID.randomUUID().toString();
        Instant conversationTime = body.time();
        Map<String, String> metadata = body.tags();
        String context = body.around();
        MemoryRecord record;
        try {
            record = new MemoryRecord(
                    id,
                    new MemoryRecord.Owner(tenant, user, session),
                    type,
                    content,
                    new MemoryRecord.Times(now, now, conversationTime),
                    metadata,
                    target,
                    MemoryRecord.Versions.FIRST,
                    context,
                    MemoryRecord.Vectors.NONE,
                    List.of());
        } catch (IllegalArgumentException e) {
            // The record's own checks, behind the ones above: what it refuses is a 400, never a 500.
            throw MemoryInput.invalid(e.getMessage());
        }
        checkQuota(tenant, caller);
        return write(embedded(record), caller, true);
    }

    /** A tool's arguments, bound as the route's body is. */
    Written update(Caller caller, String id, JsonNode body) {
        return update(caller, id, BodyBinder.bind(body, MemoryUpdate.class, MemoryCreate.INVALID));
    }

    public Written update(Caller caller, String id, MemoryUpdate body) {
        String tenant = caller.tenant();
        String content = body.text();
        Map<String, String> metadata = body.tags();
        String target = MemoryInput.target(body.target());
        Instant conversationTime = body.time();
        MemoryRecord current = record(tenant, id, false, caller);
        if (current == null) {
            throw notFound(id);
        }
        if (!MemoryInput.WRITABLE.contains(current.type())) {
            throw MemoryInput.invalid("a " + current.type().name().toLowerCase(Locale.ROOT)
                    + " is written by the pipeline; edit its source instead");
        }
        if (body.version() != null && body.version().longValue() != current.version()) {
            throw new ApiException(
                    409,
                    "version_conflict",
                    "the memory is at version " + current.version() + ", not " + body.version()
                            + "; read it again and repeat the edit");
        }
        if (content == null && metadata == null && target == null && conversationTime == null) {
            throw MemoryInput.invalid("give at least one of content, target, metadata, conversationTime");
        }
        MemoryRecord next = current.revise(
                content != null ? content : current.text(),
                metadata != null ? metadata : current.metadata(),
                Instant.now());
        if (target != null) {
            next = next.withTarget(target);
        }
        if (conversationTime != null) {
            next = next.withConversationTime(conversationTime);
        }
        return write(embedded(next), caller, false);
    }

    public Deleted delete(Caller caller, String id) {
        String tenant = caller.tenant();
        MemoryRecord current = record(tenant, id, false, caller);
        if (current == null) {
            throw notFound(id);
        }
        MemoryWriter.Written written = writer.delete(tenant, id);
        boolean visible = awaitApplied(tenant, id, written, caller);
        LOG.info("memory deleted tenant={} id={} visible={}", tenant, id, visible);
        return new Deleted(id, true, visible);
    }

    private Written write(MemoryRecord record, Caller caller, boolean created) {
        MemoryWriter.Written written = writer.upsert(record, created);
        boolean visible = awaitApplied(record.tenant(), record.id(), written, caller);
        LOG.info(
                "memory {} tenant={} id={} version={} visible={}",
                created ? "added" : "updated",
                record.tenant(),
                record.id(),
                record.version(),
                visible);
        return new Written(record.id(), record.version(), visible, MemoryView.of(record));
    }

    private MemoryRecord embedded(MemoryRecord record) {
        if (embeddings == null) {
            return record;
        }
        EmbeddingModel model = embeddings.modelFor(record.text());
        try {
            return MemoryEmbedding.withVectors(record, model.embed(MemoryEmbedding.texts(record)), model.id());
        } catch (EmbeddingException e) {
            // Written without a vector it would silently drop out of vector search: the caller retries instead.
            throw ApiException.unavailable("the memory could not be embedded", e);
        }
    }

    /**
     * Waits until the index owning the write's partition has applied its offset, asking the owner
     * (here or on another instance) every few milliseconds; false when the timeout passes first.
     */
    private boolean awaitApplied(String tenant, String id, MemoryWriter.Written written, Caller caller) {
        try {
            return Poll.until(visibilityTimeout, VISIBILITY_POLL, () -> applied(tenant, id, written, caller));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private boolean applied(String tenant, String id, MemoryWriter.Written written, Caller caller) {
        try {
            Reply answer = routing.route(
                    MemoryIndexUpdater.STORE,
                    new MemoryKey(tenant, id).key(),
                    writer.partitioning(),
                    INTERNAL_PROGRESS + id,
                    false,
                    caller,
                    partition -> progressAnswer(partition));
            if (answer.status() == 200
                    && Json.MAPPER.readTree(answer.body()).path("applied").asLong(-1) >= written.offset()) {
                return true;
            }
        } catch (ApiException | IOException e) {
            LOG.debug("index progress not known yet tenant={} id={} error={}", tenant, id, e.getMessage());
        }
        return false;
    }

    /** {@code GET /v1/internal/memories-progress/{id}}: the applied offset of the local index owning the id. */
    public Reply progress(Caller caller, String id) {
        String tenant = caller.tenant();
        return routing.route(
                MemoryIndexUpdater.STORE,
                new MemoryKey(tenant, id).key(),
                writer.partitioning(),
                INTERNAL_PROGRESS + id,
                true,
                caller,
                this::progressAnswer);
    }

    private Reply progressAnswer(int partition) {
        return Reply.json(200, Map.of("applied", local(partition, new MemoryProgress())));
    }

    // ---- reads ------------------------------------------------------------------------------------

    public MemoryView get(Caller caller, String id) {
        String tenant = caller.tenant();
        MemoryRecord record = record(tenant, id, false, caller);
        if (record == null) {
            throw notFound(id);
        }
        return MemoryView.of(record);
    }

    /** {@code GET /v1/internal/memories/{id}} from another instance: the record as stored, read here. */
    public Reply internalGet(Caller caller, String id) {
        String tenant = caller.tenant();
        return routing.route(
                MemoryIndexUpdater.STORE,
                new MemoryKey(tenant, id).key(),
                writer.partitioning(),
                INTERNAL_GET + id,
                true,
                caller,
                partition -> localGet(tenant, id, partition));
    }

    /** The tenant's memory with this id from the owning index, or null. */
    private MemoryRecord record(String tenant, String id, boolean forwarded, Caller caller) {
        Reply answer = routing.route(
                MemoryIndexUpdater.STORE,
                new MemoryKey(tenant, id).key(),
                writer.partitioning(),
                INTERNAL_GET + id,
                forwarded,
                caller,
                partition -> localGet(tenant, id, partition));
        if (answer.status() == 404) {
            return null;
        }
        if (answer.status() != 200) {
            throw ApiException.unavailable("the instance owning this memory answered " + answer.status());
        }
        try {
            return Json.MAPPER.readValue(answer.body(), MemoryRecord.class);
        } catch (IOException e) {
            throw ApiException.unavailable("the instance owning this memory sent an unreadable answer");
        }
    }

    private Reply localGet(String tenant, String id, int partition) {
        Optional<MemoryRecord> found = local(partition, new MemoryGet(tenant, id));
        return found.map(r -> Reply.json(200, r))
                .orElseGet(() -> Reply.notFound("memory_not_found", "no memory " + id));
    }

    /**
     * Refuses a new memory of a tenant at its policy's {@code maxMemories}. Counted in the index, as of
     * its last applied write: a limit, not a reservation, so writes racing each other (or a worker's
     * extraction) may pass it by the number in flight.
     *
     * @throws ApiException 409 {@code memory_quota}; 503 when a partition of the tenant cannot be counted
     */
    private void checkQuota(String tenant, Caller caller) {
        Long max = tenants == null ? null : tenants.policy(tenant).maxMemories();
        if (max == null) {
            return;
        }
        long count = count(caller);
        if (count >= max) {
            LOG.info("memory refused at quota tenant={} memories={} maxMemories={}", tenant, count, max);
            throw new ApiException(
                    409,
                    "memory_quota",
                    "tenant " + tenant + " has " + count + " memories, the most its policy allows (maxMemories " + max
                            + "); delete some before adding more");
        }
    }

    /**
     * The LLM workers' view of the same limit ({@link MemoryQuota}): the tenant's count and
     * {@code maxMemories}, counted as a create counts them, remote partitions asked with the tenant's
     * internal key. When the count cannot be had the extraction is not held back (logged): a limit
     * checked, and dead-lettering memories because a partition was moving would lose more than it saves.
     */
    public MemoryQuota.Room room(String tenant) {
        Long max = tenants == null ? null : tenants.policy(tenant).maxMemories();
        if (max == null || writer == null) {
            return MemoryQuota.Room.UNLIMITED;
        }
        try {
            return new MemoryQuota.Room(count(tenants.instanceCaller(tenant)), max);
        } catch (RuntimeException e) {
            // A partition that cannot answer (503) or a store moving under the query: the workers must get an
            // answer, not an exception that would make them ask the model again.
            LOG.warn("memory count unknown, extraction not limited tenant={} error={}", tenant, e.toString());
            return MemoryQuota.Room.UNLIMITED;
        }
    }

    /** The tenant's memories over every partition of its buckets; 503 when one of them cannot answer. */
    long count(Caller caller) {
        String tenant = caller.tenant();
        PartitionFanOut.Gathered<Page> counted = fanOut.gather(
                writer.partitioning().partitionsOf(tenant, writer.partitions()),
                owned -> localCount(tenant, owned),
                INTERNAL_LIST,
                Map.of("count", true),
                caller,
                Page.class);
        if (!counted.missing().isEmpty()) {
            throw ApiException.unavailable("the tenant's memories cannot be counted now (partitions "
                    + counted.missing() + " did not answer); ask again in a moment");
        }
        return counted.parts().stream().mapToLong(Page::count).sum();
    }

    private Page localCount(String tenant, Set<Integer> partitions) {
        if (streams.state() != KafkaStreams.State.RUNNING || partitions.isEmpty()) {
            return new Page(List.of(), Set.of(), 0);
        }
        var result = streams.query(StateQueryRequest.inStore(MemoryIndexUpdater.STORE)
                .withQuery(new MemoryCount(tenant))
                .withPartitions(partitions)
                .requireActive());
        long count = 0;
        Set<Integer> answered = new TreeSet<>();
        for (Map.Entry<Integer, QueryResult<Integer>> partition :
                result.getPartitionResults().entrySet()) {
            if (partition.getValue().isSuccess()) {
                count += partition.getValue().getResult();
                answered.add(partition.getKey());
            }
        }
        return new Page(List.of(), answered, count);
    }

    /**
     * One page of a listing, and which partitions answered it; or, for a count, no memories and how many
     * of the tenant's the partitions hold.
     */
    public record Page(List<MemoryRecord> memories, Set<Integer> answered, long count) implements PartitionFanOut.Part {
        Page(List<MemoryRecord> memories, Set<Integer> answered) {
            this(memories, answered, 0);
        }
    }

    /** The answer to a listing. */
    public record Listing(
            List<MemoryView> memories, String nextCursor, boolean partial, Set<Integer> missingPartitions) {}

    public Listing list(Caller caller, MemoryListRequest request) {
        String tenant = caller.tenant();
        MemoryListQuery query = MemoryInput.listQuery(tenant, request);
        PartitionFanOut.Gathered<Page> listed = fanOut.gather(
                writer.partitioning().partitionsOf(tenant, writer.partitions()),
                owned -> localList(query, owned),
                INTERNAL_LIST,
                Map.of("query", query),
                caller,
                Page.class);
        List<MemoryRecord> all = new ArrayList<>();
        listed.parts().forEach(part -> all.addAll(part.memories()));
        Set<Integer> missing = listed.missing();
        Comparator<MemoryRecord> order = Comparator.<MemoryRecord>comparingLong(
                        r -> query.sort().valueOf(r))
                .thenComparing(MemoryRecord::id);
        all.sort(query.descending() ? order.reversed() : order);
        List<MemoryRecord> page = all.subList(0, Math.min(query.limit(), all.size()));
        // A full page may have a next one (possibly empty); a short page is the last.
        String next = page.size() == query.limit() ? MemoryInput.encodeCursor(query, page.get(page.size() - 1)) : null;
        if (!missing.isEmpty()) {
            LOG.warn("partial memory listing tenant={} missingPartitions={}", tenant, missing);
        }
        return new Listing(page.stream().map(MemoryView::of).toList(), next, !missing.isEmpty(), missing);
    }

    /** {@code POST /v1/internal/memories-list} from another instance: the listing must be for the caller's tenant. */
    public Page internalList(String tenant, JsonNode body) {
        // Only the caller's tenant's partitions, whatever was asked.
        boolean count = body.path("count").asBoolean(false);
        MemoryListQuery query = null;
        if (!count) {
            try {
                query = Json.MAPPER.treeToValue(InstanceCalls.query(body), MemoryListQuery.class);
            } catch (IOException | IllegalArgumentException e) {
                throw new ApiException(400, "invalid_query", InstanceCalls.problem(e));
            }
            if (!tenant.equals(query.tenant())) {
                throw new ApiException(403, "tenant_mismatch", "the listing names another tenant than the API key");
            }
        }
        Set<Integer> wanted = new TreeSet<>();
        body.path("partitions").forEach(p -> wanted.add(p.asInt()));
        wanted.retainAll(writer.partitioning().partitionsOf(tenant, writer.partitions()));
        // A count of the caller's tenant's memories ({@link #count}), on the partitions asked for.
        return count ? localCount(tenant, wanted) : localList(query, wanted);
    }

    private Page localList(MemoryListQuery query, Set<Integer> partitions) {
        if (streams.state() != KafkaStreams.State.RUNNING || partitions.isEmpty()) {
            return new Page(List.of(), Set.of());
        }
        var result = streams.query(StateQueryRequest.inStore(MemoryIndexUpdater.STORE)
                .withQuery(new MemoryList(query))
                .withPartitions(partitions)
                .requireActive());
        List<MemoryRecord> memories = new ArrayList<>();
        Set<Integer> answered = new TreeSet<>();
        for (Map.Entry<Integer, QueryResult<List<MemoryRecord>>> partition :
                result.getPartitionResults().entrySet()) {
            if (partition.getValue().isSuccess()) {
                memories.addAll(partition.getValue().getResult());
                answered.add(partition.getKey());
            }
        }
        return new Page(memories, answered);
    }

    /** Runs a query on one partition of the local index; 503 when that partition is not active here. */
    private <R> R local(int partition, Query<R> query) {
        var result = streams.query(StateQueryRequest.inStore(MemoryIndexUpdater.STORE)
                .withQuery(query)
                .withPartitions(Set.of(partition))
                .requireActive());
        QueryResult<R> answer = result.getPartitionResults().get(partition);
        if (answer == null || !answer.isSuccess()) {
            throw ApiException.unavailable("the memory index of partition " + partition + " is not queryable here"
                    + (answer == null ? "" : ": " + answer.getFailureMessage()));
        }
        return answer.getResult();
    }

    private static ApiException notFound(String id) {
        return new ApiException(404, "memory_not_found", "no memory " + id);
    }
}
