package io.reme.provider;

import io.reme.search.MemoryRecord;
import java.util.List;
import java.util.Objects;

/**
 * One candidate and the nearest existing memories of the same tenant, type and target, best first,
 * each with its cosine similarity to the candidate when known.
 */
public record MergeTask(MemoryCandidate candidate, List<Neighbour> neighbours, String language) {

    /** An existing memory and how close it is to the candidate (null: no vector to compare). */
    public record Neighbour(MemoryRecord memory, Double similarity) {
        public Neighbour {
            Objects.requireNonNull(memory, "memory");
        }
    }

    public MergeTask {
        Objects.requireNonNull(candidate, "candidate");
        neighbours = List.copyOf(neighbours);
        language = language == null ? "en" : language;
    }
}
