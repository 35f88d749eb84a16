package io.reme.eval;

import io.reme.eval.LocomoEval.Recall;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Scores ranked dialog ids against a question's evidence at each k of {@link #KS}, and sums the scores of
 * the questions asked per LoCoMo category into {@link Recall} means: the recall (the share of the evidence
 * in the top k) and the capped recall (the evidence in the top k over min(k, evidence)). Not thread-safe.
 */
final class EvidenceRecall {
    /** The depths measured, shallowest first. */
    static final int[] KS = {1, 5, 10, 25, 50};
    /** The deepest k: how many hits a question asks for. */
    static final int MAX_K = KS[KS.length - 1];

    private static final Map<Integer, String> CATEGORY_NAMES =
            Map.of(1, "multi-hop", 2, "temporal", 3, "open-domain", 4, "single-hop", 5, "adversarial");

    // sums[category][ki], counts[category]; category 0 collects everything
    private final Map<Integer, double[]> sums = new TreeMap<>();
    private final Map<Integer, double[]> cappedSums = new TreeMap<>();
    private final Map<Integer, Integer> counts = new TreeMap<>();

    /** Counts one question of {@code category} whose hits ranked {@code ranked}, in its category and overall. */
    void add(int category, List<String> ranked, Set<String> evidence) {
        double[] recall = recallAtK(ranked, evidence);
        double[] capped = cappedRecallAtK(ranked, evidence);
        for (int c : new int[] {category, 0}) {
            double[] s = sums.computeIfAbsent(c, x -> new double[KS.length]);
            double[] cs = cappedSums.computeIfAbsent(c, x -> new double[KS.length]);
            for (int i = 0; i < KS.length; i++) {
                s[i] += recall[i];
                cs[i] += capped[i];
            }
            counts.merge(c, 1, Integer::sum);
        }
    }

    /** The mean recall of each category asked, in category order. */
    List<Recall> categories() {
        return byCategory(sums);
    }

    /** The mean recall over every question. */
    Recall overall() {
        return mean("overall", sums.getOrDefault(0, new double[KS.length]), counts.getOrDefault(0, 0));
    }

    /** The mean capped recall of each category asked, in category order, then over every question. */
    List<Recall> capped() {
        List<Recall> capped = byCategory(cappedSums);
        capped.add(mean("overall", cappedSums.getOrDefault(0, new double[KS.length]), counts.getOrDefault(0, 0)));
        return capped;
    }

    private List<Recall> byCategory(Map<Integer, double[]> sumsOf) {
        List<Recall> out = new ArrayList<>();
        for (Map.Entry<Integer, double[]> e : sumsOf.entrySet()) {
            if (e.getKey() != 0) {
                out.add(mean(
                        e.getKey() + " " + CATEGORY_NAMES.getOrDefault(e.getKey(), "?"),
                        e.getValue(),
                        counts.get(e.getKey())));
            }
        }
        return out;
    }

    /** For each k of {@link #KS}: the fraction of {@code evidence} among the first k of {@code ranked}. */
    static double[] recallAtK(List<String> ranked, Set<String> evidence) {
        double[] out = new double[KS.length];
        for (int i = 0; i < KS.length; i++) {
            int found = 0;
            Set<String> seen = new LinkedHashSet<>();
            for (String id : ranked.subList(0, Math.min(KS[i], ranked.size()))) {
                if (evidence.contains(id) && seen.add(id)) {
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
        double[] recall = recallAtK(ranked, evidence);
        double[] out = new double[KS.length];
        for (int i = 0; i < KS.length; i++) {
            out[i] = recall[i] * evidence.size() / Math.min(KS[i], evidence.size());
        }
        return out;
    }

    private static Recall mean(String label, double[] sums, int n) {
        double[] m = new double[KS.length];
        for (int i = 0; i < KS.length; i++) {
            m[i] = n == 0 ? 0 : sums[i] / n;
        }
        return new Recall(label, n, m);
    }
}
