package io.reme.search;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One search result: the memory (without its vector) and its scores. {@code score} is the fused
 * score in [0, 1] (see {@link HybridFusion}); {@code textScore} is the raw BM25 score and
 * {@code vectorScore} the cosine similarity, each null when the hit was not in that list;
 * {@code contextTextScore} and {@code contextVectorScore} are the same over the memory's text with
 * its {@code context} (see {@link MemoryRecord}). The raw
 * scores let a coordinator that merges several partitions' answers fuse them again. {@code target},
 * {@code version} and {@code history} are the memory's, see {@link MemoryRecord}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Hit(
        String id,
        MemoryType type,
        String text,
        double score,
        Double textScore,
        Double vectorScore,
        String tenant,
        String user,
        String session,
        Instant createdAt,
        Instant updatedAt,
        Instant conversationTime,
        Map<String, String> metadata,
        String vectorModel,
        String target,
        long version,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<MemoryRecord.Revision> history,
        String context,
        Double contextTextScore,
        Double contextVectorScore) {

    public Hit {
        metadata = metadata == null || metadata.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(metadata));
        history = history == null ? List.of() : List.copyOf(history);
    }

    /** The same memory with the scores of another fusion. */
    public Hit withScores(HybridFusion.Fused f) {
        return new Hit(
                id,
                type,
                text,
                f.score(),
                f.textScore(),
                f.vectorScore(),
                tenant,
                user,
                session,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                vectorModel,
                target,
                version,
                history,
                context,
                f.contextTextScore(),
                f.contextVectorScore());
    }

    static Hit of(MemoryRecord r, HybridFusion.Fused f) {
        return new Hit(
                r.id(),
                r.type(),
                r.text(),
                f.score(),
                f.textScore(),
                f.vectorScore(),
                r.tenant(),
                r.user(),
                r.session(),
                r.createdAt(),
                r.updatedAt(),
                r.conversationTime(),
                r.metadata(),
                r.vectorModel(),
                r.target(),
                r.version(),
                r.history(),
                r.context(),
                f.contextTextScore(),
                f.contextVectorScore());
    }

    /** The memory this hit found, without its vector. */
    @JsonIgnore
    public MemoryRecord memory() {
        return new MemoryRecord(
                id,
                tenant,
                user,
                session,
                type,
                text,
                createdAt,
                updatedAt,
                conversationTime,
                metadata,
                null,
                vectorModel,
                target,
                version,
                history,
                context,
                null);
    }
}
