package io.reme.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fuses the candidates of several indexes (a tenant's partitions) into one answer, as if they were
 * one index.
 *
 * <p>Fused scores of different indexes cannot be compared: RRF ranks and min-max normalised scores
 * are relative to each index's own candidate lists, so an index holding only weak matches still
 * puts one of them at rank 1 (fused score 1.0). Instead, each index returns its candidates with
 * their raw scores ({@link MemoryIndex#candidates}); here the text candidates of all indexes form
 * one list ordered by BM25 score and the vector candidates one list ordered by cosine, each cut to
 * {@link SearchQuery#candidates()}, and {@link HybridFusion} fuses those two lists once, then applies
 * {@code minScore} and {@code k} (a memory whose text asks a question weighed down as one index
 * does). The global top n of a list is always inside the union of the
 * indexes' top n, so nothing a single index would have found is lost.
 *
 * <p>Cosine scores are comparable across indexes. BM25 scores are close but not equal: each index
 * computes term rarity and average length over its own documents. With tenant buckets spread by
 * hashing the memory id the statistics of the buckets are alike, so the order is nearly the same as
 * one index's.
 */
public final class PartitionMerge {
    private PartitionMerge() {}

    /** One answer from the candidates {@code hits} of several indexes, for {@code query}. */
    public static List<Hit> merge(List<Hit> hits, SearchQuery query) {
        Map<String, Hit> byId = new HashMap<>();
        List<HybridFusion.Scored> text = new ArrayList<>();
        List<HybridFusion.Scored> vector = new ArrayList<>();
        List<HybridFusion.Scored> contextText = new ArrayList<>();
        List<HybridFusion.Scored> contextVector = new ArrayList<>();
        Set<String> questions = new HashSet<>();
        for (Hit hit : hits) {
            byId.merge(hit.id(), hit, PartitionMerge::newer);
            Hit.Scores scores = hit.scores();
            if (HybridFusion.asksQuestion(hit.memory().text())) {
                questions.add(hit.id());
            }
            if (scores.textScore() != null) {
                text.add(new HybridFusion.Scored(hit.id(), scores.textScore()));
            }
            if (scores.vectorScore() != null) {
                vector.add(new HybridFusion.Scored(hit.id(), scores.vectorScore()));
            }
            if (scores.contextTextScore() != null) {
                contextText.add(new HybridFusion.Scored(hit.id(), scores.contextTextScore()));
            }
            if (scores.contextVectorScore() != null) {
                contextVector.add(new HybridFusion.Scored(hit.id(), scores.contextVectorScore()));
            }
        }
        int n = query.candidates();
        List<HybridFusion.Fused> fused = HybridFusion.fuse(
                query.ranking().fusion(),
                new HybridFusion.Candidates(
                        top(text, n), top(vector, n), top(contextText, n), top(contextVector, n), questions),
                query.ranking().minScore(),
                query.k());
        List<Hit> out = new ArrayList<>(fused.size());
        for (HybridFusion.Fused f : fused) {
            out.add(byId.get(f.id()).withScores(f));
        }
        return out;
    }

    /** The best n of a list, one entry per id. */
    private static List<HybridFusion.Scored> top(List<HybridFusion.Scored> list, int n) {
        List<HybridFusion.Scored> unique = HybridFusion.dedup(list);
        return unique.size() <= n ? unique : unique.subList(0, n);
    }

    /** Of two answers for the same memory (a partition moving), the newer one. */
    private static Hit newer(Hit a, Hit b) {
        Comparator<Hit> byUpdate = Comparator.comparing(
                (Hit hit) -> hit.memory().updatedAt(), Comparator.nullsFirst(Comparator.naturalOrder()));
        return byUpdate.compare(b, a) > 0 ? b : a;
    }
}
