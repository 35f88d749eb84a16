package io.reme.search;

import java.util.List;

/** The hits of a search, best first, and where the time went. */
public record SearchResult(List<Hit> hits, Timings timings) {

    public SearchResult {
        hits = List.copyOf(hits);
    }

    /**
     * Microseconds spent in the BM25 search, the kNN search, fusion, reading the hits' records,
     * and in total; with how many candidates each list returned.
     */
    public record Timings(
            long textMicros,
            long vectorMicros,
            long fusionMicros,
            long fetchMicros,
            long totalMicros,
            int textCandidates,
            int vectorCandidates) {}
}
