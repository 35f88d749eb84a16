package io.reme.api.erasure;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.api.Caller;
import io.reme.api.cluster.Instance;
import io.reme.api.cluster.PartitionFanOut;
import io.reme.api.cluster.StreamsStores;
import io.reme.api.memory.MemoryListRequest;
import io.reme.api.memory.MemoryQueries;
import io.reme.diary.EditSignature;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureReport;
import io.reme.erasure.ErasureStores;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.message.SafeId;
import io.reme.retry.Poll;
import io.reme.topic.Topics;
import io.reme.workspace.Workspace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets one user of a tenant ({@link #eraseUser}) or a whole tenant ({@link #eraseTenant}).
 *
 * <p>The erasure is recorded before anything is removed: a signed {@link Erasure} request goes to every
 * partition of {@code messages}, {@code diary.edits} and {@code memories} in one Kafka transaction, so it
 * is either on every partition or on none. Everything else follows from it, each part by its single
 * writer and in the transaction that consumes the request: each session task deletes the user's
 * sessions from all its stores (and tombstones their stored tool outputs and tells the dialog file sink
 * to delete the user's folder), each diary task deletes the user's documents (tombstones on {@code
 * diary}, which the diary file sink applies), and each memory-index task tombstones the user's memories.
 * Each partition keeps a report; the erasure is complete when every partition of the three topics has
 * reported it and no memory of the user is listed any more. A crash at any point after the transaction
 * leaves the erasure to resume where it was, and its status to say so. The caller waits up to {@code
 * wait} for completion.
 */
public final class UserErasure {
    public static final String INTERNAL_REPORTS = "/v1/internal/erasure-reports";
    private static final Logger LOG = LoggerFactory.getLogger(UserErasure.class);
    /** Files named in a status at most: enough to find them, not a listing of a tenant's folder. */
    private static final int FILES_SHOWN = 20;
    /** How often a DELETE looks whether its erasure is complete while it waits. */
    private static final Duration COMPLETION_POLL = Duration.ofMillis(100);

    private final StreamsStores streams;
    private final MemoryQueries memories;
    private final Producer<byte[], byte[]> producer;
    private final RequestSecret secret;
    private final String messagesTopic;
    private final String diaryEditsTopic;
    private final String memoriesTopic;
    private final PartitionFanOut sessionHosts;
    private final PartitionFanOut documentHosts;
    private final PartitionFanOut memoryHosts;
    private final Workspace workspace;
    private final Duration wait;

    /**
     * @param producer a transactional producer ({@code initTransactions} done), used for erasure requests
     *     only; one erasure at a time holds it
     * @param workspace the working directory as this instance sees it (null: none), whose files of the
     *     user older than the erasure must be gone before it is complete
     */
    public UserErasure(
            StreamsStores streams,
            Instance self,
            MemoryQueries memories,
            Producer<byte[], byte[]> producer,
            RequestSecret secret,
            Topics topics,
            Workspace workspace,
            Duration wait) {
        this.streams = streams;
        this.memories = memories;
        this.producer = producer;
        this.secret = secret;
        this.messagesTopic = topics.messages();
        this.diaryEditsTopic = topics.diaryEdits();
        this.memoriesTopic = topics.memories();
        this.sessionHosts = new PartitionFanOut(streams, self, messagesTopic);
        this.documentHosts = new PartitionFanOut(streams, self, diaryEditsTopic);
        this.memoryHosts = new PartitionFanOut(streams, self, memoriesTopic);
        this.workspace = workspace;
        this.wait = wait;
    }

    /**
     * What an erasure removed so far, and whether it is done. {@code removed} counts by kind; {@code
     * retained} says what stays in append-only topics until their retention.
     */
    public record Status(
            String erasureId,
            String tenant,
            String user,
            Instant requestedAt,
            boolean complete,
            Map<String, Long> removed,
            Set<Integer> pendingSessionPartitions,
            Set<Integer> pendingDiaryPartitions,
            Set<Integer> pendingMemoryPartitions,
            long memoriesStillListed,
            boolean memoriesExpunged,
            List<String> filesPending,
            String status,
            Map<String, String> retained) {}

    /** Erases {@code user} of {@code tenant} everywhere the live system serves it from. */
    public Status eraseUser(Caller caller, String user) {
        String tenant = caller.tenant();
        String problem = SafeId.problem("user", user);
        if (problem != null) {
            throw new ApiException(400, "invalid_user", problem);
        }
        return erase(tenant, user, caller);
    }

    /** Erases every user, session, memory, document and file of {@code tenant}. */
    public Status eraseTenant(Caller caller) {
        String tenant = caller.tenant();
        return erase(tenant, null, caller);
    }

    /** The latest erasure of {@code user} ({@code null}: of the whole tenant), as the partitions report it. */
    public Status status(Caller caller, String user) {
        String tenant = caller.tenant();
        Status status = collect(tenant, user, caller);
        if (status == null) {
            throw new ApiException(
                    404,
                    "erasure_not_found",
                    "no erasure of " + (user == null ? "this tenant" : "user '" + user + "'") + " is recorded");
        }
        return status;
    }

    private Status erase(String tenant, String user, Caller caller) {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable("streams is " + streams.state() + "; try again shortly");
        }
        String erasureId = UUID.randomUUID().toString();
        Erasure erasure = new Erasure(erasureId, tenant, user, Instant.now(), 0);
        record(erasure);
        LOG.info(
                "erasure requested tenant={} user={} erasureId={}",
                tenant,
                user == null ? Erasure.ALL_USERS : user,
                erasureId);
        Optional<Status> complete;
        try {
            complete = Poll.first(wait, COMPLETION_POLL, () -> {
                Status now = collect(tenant, user, caller);
                return now != null && now.erasureId().equals(erasureId) && now.complete()
                        ? Optional.of(now)
                        : Optional.empty();
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while waiting for the erasure");
        }
        if (complete.isPresent()) {
            LOG.info(
                    "erasure complete tenant={} user={} erasureId={} removed={} ms={}",
                    tenant,
                    user == null ? Erasure.ALL_USERS : user,
                    erasureId,
                    complete.get().removed(),
                    Duration.between(erasure.requestedAt(), Instant.now()).toMillis());
            return complete.get();
        }
        Status status = collect(tenant, user, caller);
        LOG.warn(
                "erasure not complete within the wait tenant={} user={} erasureId={} waitMs={}",
                tenant,
                user == null ? Erasure.ALL_USERS : user,
                erasureId,
                wait.toMillis());
        if (status == null || !status.erasureId().equals(erasureId)) {
            // No partition has reported yet: say so, with the memories this call removed.
            return new Status(
                    erasureId,
                    tenant,
                    user,
                    erasure.requestedAt(),
                    false,
                    Map.of(),
                    Set.of(),
                    Set.of(),
                    Set.of(),
                    -1,
                    false,
                    List.of(),
                    statusPath(user),
                    retained());
        }
        return status;
    }

    /**
     * Writes the erasure request to every partition of the three topics in one transaction. A failure
     * aborts it: nothing was requested, and the caller may ask again.
     */
    private void record(Erasure erasure) {
        byte[] key = erasure.key().getBytes(StandardCharsets.UTF_8);
        byte[] memoriesKey = erasure.memoriesKey().getBytes(StandardCharsets.UTF_8);
        byte[] value = erasure.toJson();
        synchronized (producer) {
            try {
                producer.beginTransaction();
                for (String topic : List.of(messagesTopic, diaryEditsTopic, memoriesTopic)) {
                    byte[] topicKey = topic.equals(memoriesTopic) ? memoriesKey : key;
                    int partitions = producer.partitionsFor(topic).size();
                    for (int partition = 0; partition < partitions; partition++) {
                        RecordHeaders headers = new RecordHeaders();
                        headers.add(new RecordHeader(
                                Erasure.HEADER, erasure.erasureId().getBytes(StandardCharsets.UTF_8)));
                        headers.add(EditSignature.header(secret, topicKey, value));
                        producer.send(new ProducerRecord<>(topic, partition, topicKey, value, headers));
                    }
                }
                producer.commitTransaction();
            } catch (KafkaException e) {
                try {
                    producer.abortTransaction();
                } catch (KafkaException again) {
                    LOG.warn("erasure transaction not aborted error={}", again.toString());
                }
                throw ApiException.unavailable("the erasure could not be written to Kafka, nothing was erased", e);
            }
        }
    }

    /** Sums the partitions' reports of the latest erasure of the key; null when none has any. */
    private Status collect(String tenant, String user, Caller caller) {
        String key = Erasure.key(tenant, user);
        Reports sessions = reports(sessionHosts, ErasureStores.SESSIONS, messagesTopic, key, caller);
        Reports documents = reports(documentHosts, ErasureStores.DOCUMENTS, diaryEditsTopic, key, caller);
        Reports memoryReports = reports(memoryHosts, ErasureStores.MEMORIES, memoriesTopic, key, caller);
        ErasureReport latest = null;
        for (ErasureReport report : concat(sessions.reports(), documents.reports(), memoryReports.reports())) {
            if (latest == null || report.requestedAt().isAfter(latest.requestedAt())) {
                latest = report;
            }
        }
        if (latest == null) {
            return null;
        }
        String erasureId = latest.erasureId();
        Map<String, Long> removed = new LinkedHashMap<>();
        // Erasures of before tombstoned memories in the API and carried the count in the request itself.
        removed.put(
                "memories",
                concat(sessions.reports(), documents.reports(), List.of()).stream()
                        .filter(report -> report.erasureId().equals(erasureId))
                        .mapToLong(ErasureReport::memories)
                        .findFirst()
                        .orElse(0));
        for (String kind : List.of("sessions", "messages", "summaries", "toolOutputs", "documents")) {
            removed.put(kind, 0L);
        }
        Set<Integer> pendingSessions = pending(sessions, erasureId, messagesTopic);
        Set<Integer> pendingDocuments = pending(documents, erasureId, diaryEditsTopic);
        Set<Integer> pendingMemories = pending(memoryReports, erasureId, memoriesTopic);
        for (ErasureReport report : memoryReports.reports()) {
            if (report.erasureId().equals(erasureId)) {
                removed.merge("memories", report.memories(), Long::sum);
                if (!report.expunged()) {
                    // Tombstoned, but the index's files may still hold the text until its merge of deletes.
                    pendingMemories.add(report.partition());
                }
            }
        }
        for (ErasureReport report : concat(sessions.reports(), documents.reports(), List.of())) {
            if (report.erasureId().equals(erasureId)) {
                removed.merge("sessions", report.sessions(), Long::sum);
                removed.merge("messages", report.messages(), Long::sum);
                removed.merge("summaries", report.summaries(), Long::sum);
                removed.merge("toolOutputs", report.toolOutputs(), Long::sum);
                removed.merge("documents", report.documents(), Long::sum);
            }
        }
        long stillListed = stillListed(caller, user);
        List<String> filesPending = workspace == null
                ? List.of()
                : ErasureFiles.olderThan(workspace, tenant, user, latest.requestedAt(), FILES_SHOWN);
        boolean complete = pendingSessions.isEmpty()
                && pendingDocuments.isEmpty()
                && pendingMemories.isEmpty()
                && stillListed == 0
                && filesPending.isEmpty();
        return new Status(
                erasureId,
                tenant,
                user,
                latest.requestedAt(),
                complete,
                removed,
                pendingSessions,
                pendingDocuments,
                pendingMemories,
                stillListed,
                pendingMemories.isEmpty(),
                filesPending,
                statusPath(user),
                retained());
    }

    private static List<ErasureReport> concat(List<ErasureReport> a, List<ErasureReport> b, List<ErasureReport> c) {
        List<ErasureReport> all = new ArrayList<>(a);
        all.addAll(b);
        all.addAll(c);
        return all;
    }

    /** Partitions that have not reported {@code erasureId}: unanswered, or still on an older erasure. */
    private Set<Integer> pending(Reports reports, String erasureId, String topic) {
        Set<Integer> pending = new TreeSet<>();
        for (int p = 0; p < producer.partitionsFor(topic).size(); p++) {
            pending.add(p);
        }
        for (ErasureReport report : reports.reports()) {
            if (report.erasureId().equals(erasureId)) {
                pending.remove(report.partition());
            }
        }
        return pending;
    }

    /** Memories of the user (or tenant) the index still lists: 0 once the tombstones are applied. */
    private long stillListed(Caller caller, String user) {
        long listed = 0;
        List<MemoryListRequest> queries = user == null
                ? List.of(firstOf(List.of(), List.of(), List.of()))
                : List.of(
                        firstOf(List.of(), List.of(), List.of(user)),
                        firstOf(List.of("personal"), List.of(user), List.of()));
        for (MemoryListRequest query : queries) {
            MemoryQueries.Listing page = memories.list(caller, query);
            listed += page.memories().size() + (page.partial() ? 1 : 0);
        }
        return listed;
    }

    /** The first memory of the given types, about the given targets, of the given users. */
    private static MemoryListRequest firstOf(List<String> types, List<String> targets, List<String> users) {
        return new MemoryListRequest(types, targets, users, null, null, null, null, 1, null, null);
    }

    /** One store's reports of a key, from every partition that answered. */
    public record Reports(List<ErasureReport> reports, Set<Integer> answered) implements PartitionFanOut.Part {}

    private Reports reports(PartitionFanOut hosts, String store, String topic, String key, Caller caller) {
        Set<Integer> wanted = new TreeSet<>();
        for (int p = 0; p < producer.partitionsFor(topic).size(); p++) {
            wanted.add(p);
        }
        PartitionFanOut.Gathered<Reports> gathered = hosts.gather(
                wanted,
                mine -> local(store, key, mine),
                INTERNAL_REPORTS,
                Map.of("store", store, "key", key),
                caller,
                Reports.class);
        List<ErasureReport> all = new ArrayList<>();
        gathered.parts().forEach(part -> all.addAll(part.reports()));
        Set<Integer> answered = new TreeSet<>(wanted);
        answered.removeAll(gathered.missing());
        return new Reports(all, answered);
    }

    /** {@code POST /v1/internal/erasure-reports} from another instance; the key must be of the caller's tenant. */
    public Reports internal(String tenant, JsonNode body) {
        String store = body.path("store").asText("");
        String key = body.path("key").asText("");
        if (!store.equals(ErasureStores.SESSIONS)
                && !store.equals(ErasureStores.DOCUMENTS)
                && !store.equals(ErasureStores.MEMORIES)) {
            throw new ApiException(400, "invalid_query", "'store' must be a report store");
        }
        if (!key.startsWith(tenant + "/")) {
            throw new ApiException(403, "tenant_mismatch", "the reports asked for are of another tenant");
        }
        Set<Integer> wanted = new TreeSet<>();
        body.path("partitions").forEach(p -> wanted.add(p.asInt()));
        return local(store, key, wanted);
    }

    private Reports local(String store, String key, Set<Integer> wanted) {
        List<ErasureReport> found = new ArrayList<>();
        Set<Integer> answered = new TreeSet<>();
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return new Reports(found, answered);
        }
        for (int partition : wanted) {
            try {
                ReadOnlyKeyValueStore<String, ErasureReport> reports =
                        streams.store(StoreQueryParameters.fromNameAndType(
                                        store, QueryableStoreTypes.<String, ErasureReport>keyValueStore())
                                .withPartition(partition));
                ErasureReport report = reports.get(key);
                if (report != null) {
                    found.add(report);
                }
                answered.add(partition);
            } catch (InvalidStateStoreException e) {
                LOG.debug(
                        "erasure reports not queryable store={} partition={} error={}", store, partition, e.toString());
            }
        }
        return new Reports(found, answered);
    }

    private static String statusPath(String user) {
        return user == null ? "/v1/tenant/erasure" : "/v1/users/" + user + "/erasure";
    }

    /** What the erasure cannot reach: append-only topics, until their retention deletes it. */
    static Map<String, String> retained() {
        Map<String, String> retained = new LinkedHashMap<>();
        retained.put(
                "reme.messages",
                "the input as produced, until the topic's retention.ms (created with the broker default, 7 days)");
        retained.put(
                "reme.dialog",
                "archived messages: retention.ms=-1 (kept forever) as created; set a retention or delete the"
                        + " topic's records to bound it");
        retained.put(
                "reme.llm.requests, reme.llm.results, reme.diary.edits, reme.memories.pending",
                "windows, summaries, diary edits and memories in flight, until each topic's retention.ms"
                        + " (broker default, 7 days)");
        retained.put("reme.dlq", "dead letters, 30 days");
        return retained;
    }

    /** The body of {@code DELETE /v1/tenant} must name the caller's own tenant. */
    public static void requireConfirmation(String tenant, TenantErase body) {
        if (body == null || !tenant.equals(body.confirm())) {
            throw new ApiException(
                    400,
                    "confirmation_required",
                    "'confirm' must be the tenant's name, '" + tenant + "', to erase the whole tenant");
        }
    }

    static JsonNode emptyBody() {
        return Json.MAPPER.createObjectNode();
    }
}
