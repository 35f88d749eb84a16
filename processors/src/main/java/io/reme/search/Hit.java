package io.reme.search;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One search result: the memory it found, held without its vectors, and its {@link Scores}.
 *
 * <p>Its JSON is flat, the memory's fields beside the scores ({@link Wire}): search answers, and the
 * candidates one instance sends another to merge, have always looked so.
 *
 * @param memory the memory found; its vector and context vector are dropped (a hit never carries them)
 * @param scores how well it matched
 */
public record Hit(MemoryRecord memory, Scores scores) {

    /**
     * How well a memory matched. The raw scores let a coordinator that merges several partitions' answers
     * fuse them again.
     *
     * @param score the fused score in [0, 1] (see {@link HybridFusion})
     * @param textScore the raw BM25 score over the memory's text, null when the hit was not in that list
     * @param vectorScore the cosine similarity to the text's vector, null likewise
     * @param contextTextScore the BM25 score over the text with its {@code context} (see {@link MemoryRecord}),
     *     null likewise
     * @param contextVectorScore the cosine similarity to the context vector, null likewise
     */
    public record Scores(
            double score, Double textScore, Double vectorScore, Double contextTextScore, Double contextVectorScore) {

        static Scores of(HybridFusion.Fused f) {
            return new Scores(f.score(), f.textScore(), f.vectorScore(), f.contextTextScore(), f.contextVectorScore());
        }
    }

    public Hit {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(scores, "scores");
        if (memory.vector() != null || memory.contextVector() != null) {
            memory = memory.withVector(null, memory.vectorModel());
        }
    }

    static Hit of(MemoryRecord memory, HybridFusion.Fused f) {
        return new Hit(memory, Scores.of(f));
    }

    /** The memory's ID, by which hits of several partitions are matched. */
    public String id() {
        return memory.id();
    }

    /** The fused score. */
    public double score() {
        return scores.score();
    }

    /** The same memory with the scores of another fusion. */
    public Hit withScores(HybridFusion.Fused f) {
        return new Hit(memory, Scores.of(f));
    }

    @JsonValue
    Wire wire() {
        return new Wire(
                memory.id(),
                memory.type(),
                memory.text(),
                scores.score(),
                scores.textScore(),
                scores.vectorScore(),
                memory.tenant(),
                memory.user(),
                memory.session(),
                memory.createdAt(),
                memory.updatedAt(),
                memory.conversationTime(),
                memory.metadata(),
                memory.vectorModel(),
                memory.target(),
                memory.version(),
                memory.history(),
                memory.context(),
                scores.contextTextScore(),
                scores.contextVectorScore(),
                memory.sources());
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Hit fromWire(Wire wire) {
        return wire.hit();
    }

    /** A hit as JSON holds it: the memory's fields (without vectors) and the scores, side by side. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Wire(
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
            Double contextVectorScore,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SourceSpan> sources) {

        Hit hit() {
            return new Hit(
                    new MemoryRecord(
                            id,
                            new MemoryRecord.Owner(tenant, user, session),
                            type,
                            text,
                            new MemoryRecord.Times(createdAt, updatedAt, conversationTime),
                            metadata,
                            target,
                            new MemoryRecord.Versions(version, history),
                            context,
                            MemoryRecord.Vectors.of(vectorModel, null),
                            sources),
                    new Scores(score, textScore, vectorScore, contextTextScore, contextVectorScore));
        }
    }
}
