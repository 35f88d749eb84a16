package io.reme.eval;

import io.reme.eval.LocomoEval.Ranking;
import io.reme.eval.LocomoEval.Recall;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Scores ranked dialog ids against a question's evidence, and averages the scores of the questions asked per
 * category and overall. Measured at each k of {@link #KS}: the recall (the share of the evidence in the top k),
 * the capped recall (the evidence in the top k over min(k, evidence)), recall_any (1 when some evidence is in
 * the top k) and recall_all (1 when all of it is); and once per question the reciprocal rank of its first
 * evidence (0 when none is in the list) and NDCG@{@value #NDCG_K} with every evidence turn relevant alike.
 * A turn ranked twice counts at its first rank only. Not thread-safe.
 */
final class EvidenceRecall {
    /** The depths measured, shallowest first. */
    static final int[] KS = {1, 5, 10, 25, 50};
    /** The deepest k: how many hits a question asks for. */
    static final int MAX_K = KS[KS.length - 1];
    /** The depth of the NDCG reported. */
    static final int NDCG_K = 10;

    /** LoCoMo's categories by code. */
    static final Map<Integer, String> LOCOMO =
            Map.of(1, "multi-hop", 2, "temporal", 3, "open-domain", 4, "single-hop", 5, "adversarial");
    /** MemDaily's question kinds, as the data set's README codes them. */
    static final Map<Integer, String> MEMDAILY =
            Map.of(1, "simple", 2, "conditional", 3, "comparative", 4, "aggregative", 5, "post-processing", 6, "noisy");
    /** BEAM's abilities, as the data set's README codes them. */
    static final Map<Integer, String> BEAM = Map.of(
            1, "contradiction",
            2, "event-ordering",
            3, "extraction",
            4, "instruction",
            5, "knowledge-update",
            6, "multi-session",
            7, "preference",
            8, "summarization",
            9, "temporal");

    private final Map<Integer, String> categoryNames;

    /** One question's scores; the arrays hold one value per k of {@link #KS}. */
    record Scores(double[] recall, double[] capped, double[] any, double[] all, double reciprocalRank, double ndcg) {}

    /** The scores of each category's questions; category 0 collects every question. */
    private final Map<Integer, List<Scores>> scores = new TreeMap<>();

    /** With LoCoMo's category names. */
    EvidenceRecall() {
        this(LOCOMO);
    }

    EvidenceRecall(Map<Integer, String> categoryNames) {
        this.categoryNames = Map.copyOf(categoryNames);
    }

    /**
     * The category names of the data set a conversation comes from, told by its {@code sample_id} as the
     * converted sets write it: {@code beam-500k-N} for BEAM, a MemDaily source file ({@code 01_simple_events-0}),
     * else LoCoMo's.
     */
    static Map<Integer, String> namesFor(String sampleId) {
        if (sampleId.startsWith("beam-")) {
            return BEAM;
        }
        return sampleId.matches("\\d\\d_[a-z_]+-\\d+") ? MEMDAILY : LOCOMO;
    }

    /** Counts one question of {@code category} whose hits ranked {@code ranked}, in its category and overall. */
    void add(int category, List<String> ranked, Set<String> evidence) {
        Scores one = score(ranked, evidence);
        scores.computeIfAbsent(category, c -> new ArrayList<>()).add(one);
        if (category != 0) {
            scores.computeIfAbsent(0, c -> new ArrayList<>()).add(one);
        }
    }

    /** The mean recall of each category asked, in category order. */
    List<Recall> categories() {
        List<Recall> out = new ArrayList<>();
        forEachCategory((label, questions) -> out.add(recall(label, questions, Scores::recall)));
        return out;
    }

    /** The mean recall over every question. */
    Recall overall() {
        return recall("overall", scores.getOrDefault(0, List.of()), Scores::recall);
    }

    /** The mean capped recall of each category asked, in category order, then over every question. */
    List<Recall> capped() {
        List<Recall> out = new ArrayList<>();
        forEachCategory((label, questions) -> out.add(recall(label, questions, Scores::capped)));
        out.add(recall("overall", scores.getOrDefault(0, List.of()), Scores::capped));
        return out;
    }

    /** recall_any, recall_all, MRR and NDCG of each category asked, in category order, then over every question. */
    List<Ranking> rankings() {
        List<Ranking> out = new ArrayList<>();
        forEachCategory((label, questions) -> out.add(ranking(label, questions)));
        out.add(ranking("overall", scores.getOrDefault(0, List.of())));
        return out;
    }

    private void forEachCategory(BiConsumer<String, List<Scores>> each) {
        for (Map.Entry<Integer, List<Scores>> e : scores.entrySet()) {
            if (e.getKey() != 0) {
                each.accept(e.getKey() + " " + categoryNames.getOrDefault(e.getKey(), "?"), e.getValue());
            }
        }
    }

    private static Recall recall(String label, List<Scores> questions, Function<Scores, double[]> measure) {
        return new Recall(label, questions.size(), mean(questions, measure));
    }

    private static Ranking ranking(String label, List<Scores> questions) {
        double rr = 0;
        double ndcg = 0;
        for (Scores s : questions) {
            rr += s.reciprocalRank();
            ndcg += s.ndcg();
        }
        int n = Math.max(1, questions.size());
        return new Ranking(
                label, questions.size(), mean(questions, Scores::any), mean(questions, Scores::all), rr / n, ndcg / n);
    }

    private static double[] mean(List<Scores> questions, Function<Scores, double[]> measure) {
        double[] m = new double[KS.length];
        for (Scores s : questions) {
            double[] v = measure.apply(s);
            for (int i = 0; i < KS.length; i++) {
                m[i] += v[i];
            }
        }
        for (int i = 0; i < KS.length; i++) {
            m[i] = questions.isEmpty() ? 0 : m[i] / questions.size();
        }
        return m;
    }

    /** Every measure of one question whose hits ranked {@code ranked}. */
    static Scores score(List<String> ranked, Set<String> evidence) {
        List<String> distinct = List.copyOf(new LinkedHashSet<>(ranked));
        double[] recall = recallOfDistinct(distinct, evidence);
        double[] capped = new double[KS.length];
        double[] any = new double[KS.length];
        double[] all = new double[KS.length];
        for (int i = 0; i < KS.length; i++) {
            capped[i] = recall[i] * evidence.size() / Math.min(KS[i], evidence.size());
            any[i] = recall[i] > 0 ? 1 : 0;
            all[i] = recall[i] >= 1 ? 1 : 0;
        }
        double reciprocalRank = 0;
        double dcg = 0;
        for (int rank = 0; rank < distinct.size(); rank++) {
            if (evidence.contains(distinct.get(rank))) {
                if (reciprocalRank == 0) {
                    reciprocalRank = 1.0 / (rank + 1);
                }
                if (rank < NDCG_K) {
                    dcg += gain(rank);
                }
            }
        }
        double ideal = 0;
        for (int rank = 0; rank < Math.min(NDCG_K, evidence.size()); rank++) {
            ideal += gain(rank);
        }
        return new Scores(recall, capped, any, all, reciprocalRank, ideal == 0 ? 0 : dcg / ideal);
    }

    private static double gain(int rank) {
        return 1 / (Math.log(rank + 2) / Math.log(2));
    }

    /** For each k of {@link #KS}: the fraction of {@code evidence} among the first k distinct ids of {@code ranked}. */
    static double[] recallAtK(List<String> ranked, Set<String> evidence) {
        return recallOfDistinct(List.copyOf(new LinkedHashSet<>(ranked)), evidence);
    }

    private static double[] recallOfDistinct(List<String> distinct, Set<String> evidence) {
        double[] out = new double[KS.length];
        for (int i = 0; i < KS.length; i++) {
            int found = 0;
            for (String id : distinct.subList(0, Math.min(KS[i], distinct.size()))) {
                if (evidence.contains(id)) {
                    found++;
                }
            }
            out[i] = found / (double) evidence.size();
        }
        return out;
    }

    /**
     * For each k of {@link #KS}: the evidence among the first k of {@code ranked} over min(k, evidence): the share
     * of the top k that could have been evidence and was.
     */
    static double[] cappedRecallAtK(List<String> ranked, Set<String> evidence) {
        return score(ranked, evidence).capped();
    }
}
