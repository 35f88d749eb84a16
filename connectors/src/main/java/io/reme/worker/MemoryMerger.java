package io.reme.worker;

import io.reme.llm.LlmRequest;
import io.reme.provider.LlmException;
import io.reme.provider.MemoryCandidate;
import io.reme.provider.MergeDecision;
import io.reme.provider.MergeTask;
import io.reme.search.MemoryRecord;
import io.reme.search.SourceSpan;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Turns one EXTRACT request's candidates into memory writes. Each candidate is given, with the
 * nearest existing memories of its tenant, type and target (and the memories this request already
 * wrote, which the index may not show yet), to the decider: ADD makes a memory whose id is derived
 * from the request id and the candidate's position, so a re-delivered request rewrites the same
 * memories instead of adding copies; UPDATE rewrites an existing memory under its id, its previous
 * content kept in its history; NOOP writes nothing.
 */
final class MemoryMerger {
    static final int NEIGHBOURS = 20;

    /** Asks the model (with the worker's timeouts and retries) what to do with one candidate. */
    @FunctionalInterface
    interface Decider {
        MergeDecision decide(MergeTask task) throws LlmException, InterruptedException;
    }

    /**
     * The memories to write and what was decided; {@code addedIds} are the writes that are new memories
     * (an ADD, even if a later candidate of the same request updated it), the others update existing ones.
     */
    record Merged(List<MemoryRecord> writes, Set<String> addedIds, int added, int updated, int unchanged) {}

    private final MemoryLookup lookup;

    MemoryMerger(MemoryLookup lookup) {
        this.lookup = lookup;
    }

    Merged merge(LlmRequest request, List<MemoryCandidate> candidates, Decider decider, Instant now)
            throws LlmException, InterruptedException {
        Map<String, MemoryRecord> written = new LinkedHashMap<>();
        Set<String> addedIds = new HashSet<>();
        int added = 0;
        int updated = 0;
        int unchanged = 0;
        for (int i = 0; i < candidates.size(); i++) {
            MemoryCandidate candidate = candidates.get(i);
            List<MergeTask.Neighbour> neighbours = neighbours(request, candidate, written);
            MergeDecision decision = decider.decide(
                    new MergeTask(candidate, neighbours, request.dialog().language()));
            switch (decision.action()) {
                case ADD -> {
                    String id = UUID.nameUUIDFromBytes(
                                    (request.dialog().tenant() + "/" + request.requestId() + "/extract/" + i)
                                            .getBytes(StandardCharsets.UTF_8))
                            .toString();
                    written.put(
                            id,
                            new MemoryRecord(
                                    id,
                                    new MemoryRecord.Owner(
                                            request.dialog().tenant(),
                                            request.dialog().user(),
                                            request.dialog().session()),
                                    candidate.type(),
                                    decision.content(),
                                    new MemoryRecord.Times(now, now, candidate.conversationTime()),
                                    metadata(request, candidate, Map.of()),
                                    candidate.target(),
                                    MemoryRecord.Versions.FIRST,
                                    null,
                                    MemoryRecord.Vectors.NONE,
                                    sources(request)));
                    addedIds.add(id);
                    added++;
                }
                case UPDATE -> {
                    MemoryRecord base = neighbours.stream()
                            .map(MergeTask.Neighbour::memory)
                            .filter(m -> m.id().equals(decision.memoryId()))
                            .findFirst()
                            .orElse(null);
                    if (base == null) {
                        throw new LlmException(
                                "the merge updates " + decision.memoryId()
                                        + ", which is not one of the memories it was shown",
                                true,
                                null);
                    }
                    MemoryRecord next = base.revise(
                                    decision.content(), metadata(request, candidate, base.metadata()), now)
                            .withSources(sources(request));
                    if (candidate.conversationTime() != null) {
                        next = next.withConversationTime(candidate.conversationTime());
                    }
                    written.put(base.id(), next);
                    updated++;
                }
                case NOOP -> unchanged++;
            }
        }
        return new Merged(List.copyOf(written.values()), Set.copyOf(addedIds), added, updated, unchanged);
    }

    /** The index's nearest memories with this request's own writes of the same type and target laid over them. */
    private List<MergeTask.Neighbour> neighbours(
            LlmRequest request, MemoryCandidate candidate, Map<String, MemoryRecord> written) {
        List<MergeTask.Neighbour> result = new ArrayList<>();
        for (MemoryRecord own : written.values()) {
            if (own.type() == candidate.type() && candidate.target().equals(own.target())) {
                result.add(new MergeTask.Neighbour(own, null));
            }
        }
        for (MergeTask.Neighbour n : lookup.nearest(
                request.dialog().tenant(), candidate.type(), candidate.target(), candidate.content(), NEIGHBOURS)) {
            if (!written.containsKey(n.memory().id())) {
                result.add(n);
            }
        }
        return result.size() <= NEIGHBOURS ? result : result.subList(0, NEIGHBOURS);
    }

    /** The span the request's memories were extracted from. */
    private static List<SourceSpan> sources(LlmRequest request) {
        SourceSpan span = SourceSpan.of(request.dialog().messages());
        return span == null ? List.of() : List.of(span);
    }

    private static Map<String, String> metadata(
            LlmRequest request, MemoryCandidate candidate, Map<String, String> previous) {
        Map<String, String> metadata = new HashMap<>(previous);
        metadata.putAll(candidate.metadata());
        metadata.put("source", "extract");
        metadata.put("session", request.dialog().session());
        return metadata;
    }
}
