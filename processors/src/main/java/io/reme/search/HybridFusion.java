package io.reme.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Combines a text (BM25) and a vector (kNN) candidate list into one ranking. Pure functions.
 *
 * <h2>Inputs</h2>
 * Either list may be null or empty. A list holding the same id more than once keeps that id's
 * highest score. Within a list, rank 1 is the highest score, ties ordered by id.
 *
 * <h2>Scores, and what {@code minScore} means</h2>
 * Every fused score is in [0, 1], and 1 means "best in every list that has candidates". The
 * threshold {@code minScore} is applied to that fused score, after fusion, and has the same
 * meaning whether one list or both have candidates: a list with no candidates takes no part (its
 * weight is left out of the normalisation rather than counted as zeros for everyone).
 * <ul>
 *   <li>{@link FusionMode#WEIGHTED}: each list is min-max normalised over its own candidates (the
 *       top one gets 1, the last one 0; a list whose scores are all equal gives everyone 1). A hit
 *       missing from a list gets 0 there. Fused = sum of weight x normalised score, divided by the
 *       sum of the weights of the lists that have candidates (vector {@value #VECTOR_WEIGHT},
 *       text {@value #TEXT_WEIGHT}). With text only, the fused score is the normalised BM25 score.</li>
 *   <li>{@link FusionMode#RRF}: sum over lists of 1 / ({@value #RRF_K} + rank), divided by the
 *       largest possible value for the lists that have candidates (1 / 11 each), so rank 1 in
 *       every list gives 1. Scaling does not change the RRF order.</li>
 *   <li>{@link FusionMode#RANK_AND_SCORE} (the default): half the scaled RRF score above, half the
 *       mean over the lists that have candidates of each list's raw score divided by that list's
 *       highest (0 where the memory is missing or the score is negative). RRF alone keeps only the
 *       order of a list: a memory holding the question's rare words, far ahead of the rest in BM25,
 *       counts as much as one barely ahead. Dividing by the best keeps the scale free and, unlike
 *       min-max, does not depend on how deep the list was asked (its minimum would).</li>
 * </ul>
 * Min-max scores are relative to the candidate set, so a threshold filters relative quality, not an
 * absolute similarity; the raw scores are kept on every result for callers that need those.
 *
 * <p>A memory that asks a question ({@link #asksQuestion}, listed in {@link Candidates#questions()})
 * keeps {@value #QUESTION_WEIGHT} of its fused score, in every mode.
 *
 * <h2>Order</h2>
 * By fused score, highest first; equal scores by id (ascending), so the order never depends on
 * the input order.
 */
public final class HybridFusion {
    public static final double VECTOR_WEIGHT = 0.7;
    public static final double TEXT_WEIGHT = 0.3;
    /**
     * RRF's rank constant: rank 1 of a list counts (k + 10) / (k + 1) times rank 10, 1.8 times at 10.
     * An agent reads the first few hits, so a memory first in one list should outweigh one that is
     * tenth in two. The usual 60 (set for fusing many systems' lists of 1,000) makes rank 1 worth only
     * 1.15 times rank 10, and the top ten is then ordered mostly by how many lists a memory is in,
     * where a neighbour of the answer (found through the context lists) ties with the answer. On
     * LoCoMo dev every k from 2 to 30 beat 60 at 1, 5 and 10, with context lists and without
     * (docs/evaluation.md).
     */
    public static final int RRF_K = 10;
    /**
     * What a memory that asks a question keeps of its fused score ({@link #asksQuestion}): three
     * quarters, as if one of four lists had not found it. A question said in a dialog holds what the
     * speaker did not know; the answer is in the reply. Yet the asker's words are the ones a later
     * search repeats ("how did the kids handle the accident?"), so without this the question ranks
     * above its answer. On LoCoMo dev a third of the first hits asked a question and one in seven of
     * those was the evidence (docs/evaluation.md). A quarter moves a question below an answer that
     * matched about as well, never below one that matched clearly worse.
     */
    public static final double QUESTION_WEIGHT = 0.75;

    /** A candidate from one list: its id and the list's raw score for it. */
    public record Scored(String id, double score) {
        public Scored {
            Objects.requireNonNull(id, "id");
            if (!Double.isFinite(score)) {
                throw new IllegalArgumentException("score must be finite (id " + id + ")");
            }
        }
    }

    /** A fused result: fused score in [0, 1], and the raw score from each list (null when absent there). */
    public record Fused(
            String id,
            double score,
            Double textScore,
            Double vectorScore,
            Double contextTextScore,
            Double contextVectorScore) {
        public Fused(String id, double score, Double textScore, Double vectorScore) {
            this(id, score, textScore, vectorScore, null, null);
        }

        /** The same candidate with another fused score; the lists' raw scores stay. */
        Fused withScore(double newScore) {
            return new Fused(id, newScore, textScore, vectorScore, contextTextScore, contextVectorScore);
        }
    }

    /**
     * The candidate lists of one search: BM25 and kNN over the memories' own text, and BM25 and
     * kNN over their text with its {@link MemoryRecord#context}. Any list may be null or empty.
     */
    public record Candidates(
            List<Scored> text,
            List<Scored> vector,
            List<Scored> contextText,
            List<Scored> contextVector,
            Set<String> questions) {
        public Candidates {
            questions = questions == null ? Set.of() : questions;
        }

        /** Lists without any memory known to ask a question. */
        public Candidates(
                List<Scored> text, List<Scored> vector, List<Scored> contextText, List<Scored> contextVector) {
            this(text, vector, contextText, contextVector, Set.of());
        }

        public static Candidates of(List<Scored> text, List<Scored> vector) {
            return new Candidates(text, vector, null, null);
        }
    }

    /**
     * Whether a memory's text asks a question: its last character, trailing spaces aside, is a
     * question mark (ASCII or full-width). "Did you hear? I got the job." states something and is
     * not one; a question followed by more text is read as a statement.
     */
    public static boolean asksQuestion(String text) {
        if (text == null) {
            return false;
        }
        int end = text.length();
        while (end > 0 && Character.isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        return end > 0 && (text.charAt(end - 1) == '?' || text.charAt(end - 1) == '\uFF1F');
    }

    private static final Comparator<Scored> BY_SCORE_THEN_ID =
            Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::id);
    private static final Comparator<Fused> FUSED_ORDER =
            Comparator.comparingDouble(Fused::score).reversed().thenComparing(Fused::id);

    private HybridFusion() {}

    /** Fuses, drops results below {@code minScore} and keeps the best {@code k}. */
    public static List<Fused> fuse(FusionMode mode, List<Scored> text, List<Scored> vector, double minScore, int k) {
        return fuse(mode, Candidates.of(text, vector), minScore, k);
    }

    /**
     * Fuses all four lists, drops results below {@code minScore} and keeps the best {@code k}. With
     * RRF every list has weight 1. Weighted, the two text lists share {@value #TEXT_WEIGHT} and the
     * two vector lists {@value #VECTOR_WEIGHT}, halves each when both have candidates: a memory
     * without context (its context lists then hold its own text) weighs as much as it did before
     * there were context lists.
     */
    public static List<Fused> fuse(FusionMode mode, Candidates candidates, double minScore, int k) {
        List<Fused> all = switch (mode) {
            case WEIGHTED -> {
                boolean bothText = nonEmpty(candidates.text()) && nonEmpty(candidates.contextText());
                boolean bothVector = nonEmpty(candidates.vector()) && nonEmpty(candidates.contextVector());
                double text = bothText ? TEXT_WEIGHT / 2 : TEXT_WEIGHT;
                double vector = bothVector ? VECTOR_WEIGHT / 2 : VECTOR_WEIGHT;
                yield fuse(candidates, new double[] {text, vector, text, vector}, false);
            }
            case RRF -> fuse(candidates, new double[] {1, 1, 1, 1}, true);
            case RANK_AND_SCORE -> rankAndScore(candidates);
        };
        if (!candidates.questions().isEmpty()) {
            List<Fused> weighed = new ArrayList<>(all.size());
            for (Fused f : all) {
                weighed.add(candidates.questions().contains(f.id()) ? f.withScore(f.score() * QUESTION_WEIGHT) : f);
            }
            weighed.sort(FUSED_ORDER);
            all = weighed;
        }
        List<Fused> out = new ArrayList<>(Math.min(k, all.size()));
        for (Fused f : all) {
            if (out.size() == k) {
                break;
            }
            if (f.score() >= minScore) {
                out.add(f);
            }
        }
        return out;
    }

    /** Weighted sum of min-max normalised scores; all candidates, in fused order. */
    public static List<Fused> weighted(List<Scored> text, List<Scored> vector, double textWeight, double vectorWeight) {
        if (!(textWeight >= 0 && vectorWeight >= 0 && textWeight + vectorWeight > 0)) {
            throw new IllegalArgumentException("weights must be >= 0 and not both 0");
        }
        List<Scored> t = dedup(text);
        List<Scored> v = dedup(vector);
        double weights = (t.isEmpty() ? 0 : textWeight) + (v.isEmpty() ? 0 : vectorWeight);
        Map<String, Double> tn = minMax(t);
        Map<String, Double> vn = minMax(v);
        return combine(
                t,
                v,
                id -> weights == 0
                        ? 0
                        : (textWeight * tn.getOrDefault(id, 0.0) + vectorWeight * vn.getOrDefault(id, 0.0)) / weights);
    }

    /** Reciprocal rank fusion (k = {@value #RRF_K}), scaled to [0, 1]; all candidates, in fused order. */
    public static List<Fused> rrf(List<Scored> text, List<Scored> vector) {
        return rrf(text, vector, 1, 1);
    }

    /**
     * Reciprocal rank fusion with a weight per list: sum of weight / (k + rank), divided by the
     * sum of the weights of the lists that have candidates over k + 1, so rank 1 everywhere gives 1.
     */
    public static List<Fused> rrf(List<Scored> text, List<Scored> vector, double textWeight, double vectorWeight) {
        if (!(textWeight >= 0 && vectorWeight >= 0 && textWeight + vectorWeight > 0)) {
            throw new IllegalArgumentException("weights must be >= 0 and not both 0");
        }
        List<Scored> t = dedup(text);
        List<Scored> v = dedup(vector);
        double best = ((t.isEmpty() ? 0 : textWeight) + (v.isEmpty() ? 0 : vectorWeight)) / (RRF_K + 1);
        Map<String, Double> tr = reciprocalRanks(t);
        Map<String, Double> vr = reciprocalRanks(v);
        return combine(
                t,
                v,
                id -> best == 0
                        ? 0
                        : (textWeight * tr.getOrDefault(id, 0.0) + vectorWeight * vr.getOrDefault(id, 0.0)) / best);
    }

    private static boolean nonEmpty(List<Scored> list) {
        return list != null && !list.isEmpty();
    }

    /** Weighted RRF or weighted min-max over the four lists, scaled so the best possible is 1. */
    private static List<Fused> fuse(Candidates c, double[] weights, boolean rrf) {
        List<List<Scored>> lists =
                List.of(dedup(c.text()), dedup(c.vector()), dedup(c.contextText()), dedup(c.contextVector()));
        List<Map<String, Double>> parts = new ArrayList<>(lists.size());
        List<Map<String, Double>> raws = new ArrayList<>(lists.size());
        double best = 0;
        Set<String> ids = new LinkedHashSet<>();
        for (int i = 0; i < lists.size(); i++) {
            List<Scored> list = lists.get(i);
            parts.add(rrf ? reciprocalRanks(list) : minMax(list));
            raws.add(toMap(list));
            if (!list.isEmpty()) {
                best += rrf ? weights[i] / (RRF_K + 1) : weights[i];
            }
            list.forEach(s -> ids.add(s.id()));
        }
        List<Fused> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            double sum = 0;
            for (int i = 0; i < lists.size(); i++) {
                sum += weights[i] * parts.get(i).getOrDefault(id, 0.0);
            }
            out.add(new Fused(
                    id,
                    best == 0 ? 0 : sum / best,
                    raws.get(0).get(id),
                    raws.get(1).get(id),
                    raws.get(2).get(id),
                    raws.get(3).get(id)));
        }
        out.sort(FUSED_ORDER);
        return out;
    }

    /** Half RRF (scaled to 1), half the mean of the max-normalised raw scores; all candidates, in fused order. */
    private static List<Fused> rankAndScore(Candidates c) {
        List<Fused> ranks = fuse(c, new double[] {1, 1, 1, 1}, true);
        List<List<Scored>> lists =
                List.of(dedup(c.text()), dedup(c.vector()), dedup(c.contextText()), dedup(c.contextVector()));
        Map<String, Double> scores = new HashMap<>();
        int used = 0;
        for (List<Scored> list : lists) {
            if (list.isEmpty()) {
                continue;
            }
            used++;
            double best = list.get(0).score();
            for (Scored s : list) {
                double part = best > 0 ? Math.max(0, s.score()) / best : 0;
                scores.merge(s.id(), part, Double::sum);
            }
        }
        List<Fused> out = new ArrayList<>(ranks.size());
        for (Fused f : ranks) {
            double score = used == 0 ? 0 : scores.getOrDefault(f.id(), 0.0) / used;
            out.add(f.withScore((f.score() + score) / 2));
        }
        out.sort(FUSED_ORDER);
        return out;
    }

    private static List<Fused> combine(List<Scored> t, List<Scored> v, ToDoubleFunction<String> f) {
        Map<String, Double> rawText = toMap(t);
        Map<String, Double> rawVector = toMap(v);
        Set<String> ids = new LinkedHashSet<>();
        t.forEach(s -> ids.add(s.id()));
        v.forEach(s -> ids.add(s.id()));
        List<Fused> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            out.add(new Fused(id, f.applyAsDouble(id), rawText.get(id), rawVector.get(id)));
        }
        out.sort(FUSED_ORDER);
        return out;
    }

    /** One entry per id (its highest score), sorted by score descending then id. */
    static List<Scored> dedup(List<Scored> list) {
        if (list == null || list.isEmpty()) {
            return List.of();
        }
        Map<String, Scored> best = new HashMap<>();
        for (Scored s : list) {
            best.merge(s.id(), s, (a, b) -> b.score() > a.score() ? b : a);
        }
        List<Scored> out = new ArrayList<>(best.values());
        out.sort(BY_SCORE_THEN_ID);
        return out;
    }

    private static Map<String, Double> minMax(List<Scored> sorted) {
        Map<String, Double> out = new HashMap<>();
        if (sorted.isEmpty()) {
            return out;
        }
        double max = sorted.get(0).score();
        double min = sorted.get(sorted.size() - 1).score();
        double range = max - min;
        for (Scored s : sorted) {
            out.put(s.id(), range > 0 ? (s.score() - min) / range : 1.0);
        }
        return out;
    }

    private static Map<String, Double> reciprocalRanks(List<Scored> sorted) {
        Map<String, Double> out = new HashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            out.put(sorted.get(i).id(), 1.0 / (RRF_K + i + 1));
        }
        return out;
    }

    private static Map<String, Double> toMap(List<Scored> list) {
        Map<String, Double> out = new HashMap<>();
        list.forEach(s -> out.put(s.id(), s.score()));
        return out;
    }
}
