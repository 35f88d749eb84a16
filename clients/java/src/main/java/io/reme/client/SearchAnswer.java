package io.reme.client;

import java.util.List;
import java.util.Map;

/**
 * The answer of {@code POST /v1/search}: hits, best first.
 *
 * @param hits the hits
 * @param partial whether a partition did not answer
 * @param missingPartitions the partitions that did not
 * @param timings milliseconds by phase, as the server measured them
 */
public record SearchAnswer(
        List<Hit> hits, boolean partial, List<Integer> missingPartitions, Map<String, Double> timings) {
    public SearchAnswer {
        hits = hits == null ? List.of() : List.copyOf(hits);
        missingPartitions = missingPartitions == null ? List.of() : List.copyOf(missingPartitions);
        timings = timings == null ? Map.of() : Map.copyOf(timings);
    }
}
