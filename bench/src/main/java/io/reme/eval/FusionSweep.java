package io.reme.eval;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import io.reme.search.Hit;
import io.reme.search.HybridFusion;
import io.reme.search.QueryTime;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An experiment: other orders of the same four candidate lists ({@code MemoryIndex#candidates}), each
 * measured like the service's order, so fusion variants are compared on one run of the questions.
 */
final class FusionSweep {
    /** The four lists' raw scores of one search, as ranks (1 = best; absent = no rank). */
    record Lists(List<String> ids, List<Map<String, Integer>> ranks, Map<String, Hit> hits) {}

    /**
     * A text's L2-normalised word-piece vectors ({@code LocalOnnxEmbeddingModel#tokenVectors}), for the
     * late-interaction (MaxSim) variants; null (the default) leaves them out.
     */
    static volatile Function<String, float[][]> tokenVectors;

    private final Map<String, float[][]> tokenCache = new HashMap<>();
    private final long[] tokenRuns = new long[2];
    private final long[] tokenNanos = new long[2];
    private long queryRuns;
    private long queryNanos;
    private final Map<String, Function<Lists, List<String>>> variants = new LinkedHashMap<>();
    private final Map<String, Map<Integer, double[]>> sums = new LinkedHashMap<>();
    private final Map<Integer, Integer> counts = new TreeMap<>();

    FusionSweep() {
        for (int k : new int[] {60, 30, 20, 10, 5, 2}) {
            variants.put("rrf k=" + k, l -> rrf(l, k, new double[] {1, 1, 1, 1}));
        }
        for (double weight : new double[] {0.9, 0.8, 0.75, 0.7, 0.5}) {
            for (int k : new int[] {20, 10, 5}) {
                variants.put("rrf k=" + k + ", questions x" + weight, l -> questions(l, k, weight));
            }
        }
        for (int n : new int[] {5, 10, 30, 50}) {
            for (int k : new int[] {60, 10}) {
                variants.put(
                        "top " + n + " by bare RRF k=" + k + " + stage-1 rank",
                        l -> rescore(l, n, k, rrf(l, HybridFusion.RRF_K, new double[] {1, 1, 1, 1}), true));
                variants.put(
                        "top " + n + " by bare RRF k=" + k + " only",
                        l -> rescore(l, n, k, rrf(l, HybridFusion.RRF_K, new double[] {1, 1, 1, 1}), false));
            }
            variants.put(
                    "top " + n + " by bare min-max .3 bm25 .7 cos",
                    l -> minMaxRescore(l, n, rrf(l, HybridFusion.RRF_K, new double[] {1, 1, 1, 1})));
        }
    }

    private static final Comparator<Map.Entry<String, Double>> DESC =
            Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey());

    static Lists lists(List<Hit> candidates) {
        List<Function<Hit.Scores, Double>> raw = List.of(
                Hit.Scores::textScore,
                Hit.Scores::vectorScore,
                Hit.Scores::contextTextScore,
                Hit.Scores::contextVectorScore);
        List<Map<String, Integer>> ranks = new ArrayList<>();
        Map<String, Hit> byId = new HashMap<>();
        candidates.forEach(h -> byId.put(h.id(), h));
        for (Function<Hit.Scores, Double> f : raw) {
            Map<String, Double> s = new HashMap<>();
            for (Hit h : candidates) {
                if (f.apply(h.scores()) != null) {
                    s.put(h.id(), f.apply(h.scores()));
                }
            }
            List<Map.Entry<String, Double>> sorted = new ArrayList<>(s.entrySet());
            sorted.sort(DESC);
            Map<String, Integer> r = new HashMap<>();
            for (int i = 0; i < sorted.size(); i++) {
                r.put(sorted.get(i).getKey(), i + 1);
            }
            ranks.add(r);
        }
        return new Lists(candidates.stream().map(Hit::id).toList(), ranks, byId);
    }

    static List<String> order(Map<String, Double> scores) {
        List<Map.Entry<String, Double>> sorted = new ArrayList<>(scores.entrySet());
        sorted.sort(DESC);
        return sorted.stream().map(Map.Entry::getKey).toList();
    }

    static List<String> rrf(Lists l, int k, double[] w) {
        return order(rrfScores(l, k, w));
    }

    /** RRF over the four lists, a memory whose text asks a question keeping {@code weight} of its score. */
    static List<String> questions(Lists l, int k, double weight) {
        Map<String, Double> s = rrfScores(l, k, new double[] {1, 1, 1, 1});
        s.replaceAll(
                (id, sum) -> HybridFusion.asksQuestion(l.hits().get(id).memory().text()) ? sum * weight : sum);
        return order(s);
    }

    /** Each candidate's sum over the four lists of {@code w[list] / (k + rank)}. */
    private static Map<String, Double> rrfScores(Lists l, int k, double[] w) {
        Map<String, Double> s = new HashMap<>();
        for (String id : l.ids()) {
            double sum = 0;
            for (int i = 0; i < 4; i++) {
                Integer r = l.ranks().get(i).get(id);
                if (r != null) {
                    sum += w[i] / (k + r);
                }
            }
            s.put(id, sum);
        }
        return s;
    }

    /** The first n of the stage-1 order reordered by the bare lists' RRF (and the stage-1 rank); the rest kept. */
    static List<String> rescore(Lists l, int n, int k, List<String> first, boolean withFirst) {
        Map<String, Double> s = new HashMap<>();
        for (int i = 0; i < Math.min(n, first.size()); i++) {
            String id = first.get(i);
            double sum = withFirst ? 1.0 / (k + i + 1) : 0;
            for (int list = 0; list < 2; list++) {
                Integer r = l.ranks().get(list).get(id);
                if (r != null) {
                    sum += 1.0 / (k + r);
                }
            }
            s.put(id, sum);
        }
        List<String> out = new ArrayList<>(order(s));
        out.addAll(first.subList(Math.min(n, first.size()), first.size()));
        return out;
    }

    static List<String> minMaxRescore(Lists l, int n, List<String> first) {
        List<String> top = first.subList(0, Math.min(n, first.size()));
        double[] bm = new double[top.size()];
        double[] cos = new double[top.size()];
        for (int i = 0; i < top.size(); i++) {
            Hit h = l.hits().get(top.get(i));
            bm[i] = h.scores().textScore() == null ? 0 : h.scores().textScore();
            cos[i] = h.scores().vectorScore() == null ? 0 : h.scores().vectorScore();
        }
        double[] nb = norm(bm);
        double[] nc = norm(cos);
        Map<String, Double> s = new HashMap<>();
        for (int i = 0; i < top.size(); i++) {
            s.put(top.get(i), .3 * nb[i] + .7 * nc[i]);
        }
        List<String> out = new ArrayList<>(order(s));
        out.addAll(first.subList(top.size(), first.size()));
        return out;
    }

    private static double[] norm(double[] v) {
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (double x : v) {
            min = Math.min(min, x);
            max = Math.max(max, x);
        }
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = max > min ? (v[i] - min) / (max - min) : 1;
        }
        return out;
    }

    /** Measures every variant on one question's candidates. */
    void add(
            int category,
            String question,
            List<Hit> candidates,
            Set<String> evidence,
            Function<String, String> diaId,
            Function<String, List<Hit>> requery) {
        Lists l = lists(candidates);
        dump(category, question, candidates, evidence, diaId, l);
        Map<String, List<String>> orders = new LinkedHashMap<>();
        for (Map.Entry<String, Function<Lists, List<String>>> v : variants.entrySet()) {
            orders.put(v.getKey(), v.getValue().apply(l));
        }
        List<String> first = orders.get("rrf k=" + HybridFusion.RRF_K);
        for (int m : new int[] {1, 3}) {
            String expansion = expansion(question, first.subList(0, Math.min(m, first.size())), l.hits());
            if (expansion.isEmpty()) {
                orders.put("prf top " + m + " names, 6 lists", first);
                orders.put("prf top " + m + " names, 6 lists, below stage-1 top 1", first);
                continue;
            }
            List<Hit> again = requery.apply(question + " " + expansion);
            Map<String, Hit> merged = new HashMap<>(l.hits());
            again.forEach(h -> merged.putIfAbsent(h.id(), h));
            Lists second = lists(again);
            List<Map<String, Integer>> six = new ArrayList<>(l.ranks());
            six.add(second.ranks().get(0));
            six.add(second.ranks().get(2));
            Map<String, Double> sc = new HashMap<>();
            for (String id : merged.keySet()) {
                double sum = 0;
                for (Map<String, Integer> r : six) {
                    Integer rank = r.get(id);
                    if (rank != null) {
                        sum += 1.0 / (HybridFusion.RRF_K + rank);
                    }
                }
                sc.put(id, sum);
            }
            List<String> prf = order(sc);
            orders.put("prf top " + m + " names, 6 lists", prf);
            List<String> keep = new ArrayList<>(first.subList(0, Math.min(1, first.size())));
            prf.stream().filter(id -> !keep.contains(id)).forEach(keep::add);
            orders.put("prf top " + m + " names, 6 lists, below stage-1 top 1", keep);
        }
        if (tokenVectors != null) {
            maxSim(question, first, l.hits(), orders, l);
        }
        for (Map.Entry<String, List<String>> v : orders.entrySet()) {
            List<String> ranked = v.getValue().stream().map(diaId).toList();
            double[] recall = EvidenceRecall.recallAtK(ranked, evidence);
            Map<Integer, double[]> byCategory = sums.computeIfAbsent(v.getKey(), x -> new TreeMap<>());
            for (int c : new int[] {category, 0}) {
                double[] s = byCategory.computeIfAbsent(c, x -> new double[recall.length]);
                for (int i = 0; i < recall.length; i++) {
                    s[i] += recall[i];
                }
            }
        }
        counts.merge(category, 1, Integer::sum);
        counts.merge(0, 1, Integer::sum);
    }

    /**
     * Re-scores stage 1's top N by MaxSim (sum over the question's tokens of the best cosine among the
     * candidate's tokens), over the bare text and over text + context, and fuses that order with
     * stage 1's (RRF, k = 10) or uses it alone; the rest of the list is kept.
     */
    private void maxSim(
            String question, List<String> first, Map<String, Hit> hits, Map<String, List<String>> orders, Lists l) {
        long q0 = System.nanoTime();
        float[][] query = tokenVectors.apply(question);
        queryNanos += System.nanoTime() - q0;
        queryRuns++;
        for (boolean withContext : new boolean[] {false, true}) {
            Map<String, Double> scores = new HashMap<>();
            int deepest = Math.min(30, first.size());
            for (String id : first.subList(0, deepest)) {
                Hit h = hits.get(id);
                String text = withContext && h.memory().context() != null
                        ? h.memory().text() + "\n" + h.memory().context()
                        : h.memory().text();
                scores.put(id, maxSim(query, tokensOf(text, withContext ? 1 : 0)));
            }
            String what = withContext ? "text+context" : "bare";
            for (int n : new int[] {10, 30}) {
                List<String> top = first.subList(0, Math.min(n, first.size()));
                Map<String, Double> alone = new HashMap<>();
                top.forEach(id -> alone.put(id, scores.get(id)));
                List<String> byMaxSim = order(alone);
                Map<String, Integer> maxRank = new HashMap<>();
                for (int i = 0; i < byMaxSim.size(); i++) {
                    maxRank.put(byMaxSim.get(i), i + 1);
                }
                Map<String, Double> fused = new HashMap<>();
                Map<String, Double> fifth = new HashMap<>();
                for (int i = 0; i < top.size(); i++) {
                    String id = top.get(i);
                    int k = HybridFusion.RRF_K;
                    fused.put(id, 1.0 / (k + i + 1) + 1.0 / (k + maxRank.get(id)));
                    double sum = 1.0 / (k + maxRank.get(id));
                    for (Map<String, Integer> r : l.ranks()) {
                        Integer rank = r.get(id);
                        if (rank != null) {
                            sum += 1.0 / (k + rank);
                        }
                    }
                    fifth.put(id, sum);
                }
                orders.put("maxsim " + what + ": top " + n + " by MaxSim only", rest(byMaxSim, first, n));
                orders.put(
                        "maxsim " + what + ": top " + n + " by RRF(stage-1 rank, MaxSim rank)",
                        rest(order(fused), first, n));
                orders.put(
                        "maxsim " + what + ": top " + n + " by RRF(four lists + MaxSim)", rest(order(fifth), first, n));
            }
        }
    }

    private static List<String> rest(List<String> top, List<String> first, int n) {
        List<String> out = new ArrayList<>(top);
        out.addAll(first.subList(Math.min(n, first.size()), first.size()));
        return out;
    }

    private float[][] tokensOf(String text, int kind) {
        float[][] cached = tokenCache.get(text);
        if (cached == null) {
            if (tokenCache.size() > 20_000) {
                tokenCache.clear();
            }
            long t0 = System.nanoTime();
            cached = tokenVectors.apply(text);
            tokenNanos[kind] += System.nanoTime() - t0;
            tokenRuns[kind]++;
            tokenCache.put(text, cached);
        }
        return cached;
    }

    static double maxSim(float[][] query, float[][] doc) {
        double sum = 0;
        for (float[] q : query) {
            double best = 0;
            for (float[] d : doc) {
                double dot = 0;
                for (int i = 0; i < q.length; i++) {
                    dot += q[i] * d[i];
                }
                best = Math.max(best, dot);
            }
            sum += best;
        }
        return sum;
    }

    private static PrintWriter dumpOut;

    /** With {@code -Dreme.eval.dump=FILE}: one JSON line per question with every candidate's ranks, for analysis. */
    private static synchronized void dump(
            int category,
            String question,
            List<Hit> candidates,
            Set<String> evidence,
            Function<String, String> diaId,
            Lists l) {
        String file = System.getProperty("reme.eval.dump");
        if (file == null) {
            return;
        }
        try {
            if (dumpOut == null) {
                dumpOut = new PrintWriter(Files.newBufferedWriter(Path.of(file)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<QueryTime.Term> terms = QueryTime.terms(question);
        List<String> first = rrf(l, HybridFusion.RRF_K, new double[] {1, 1, 1, 1});
        Map<String, Integer> pos = new HashMap<>();
        for (int i = 0; i < first.size(); i++) {
            pos.put(first.get(i), i);
        }
        ObjectNode q = Json.MAPPER.createObjectNode();
        q.put("cat", category);
        q.put("q", question);
        q.putPOJO("ev", new ArrayList<>(evidence));
        q.put("dated", !terms.isEmpty());
        ArrayNode cs = q.putArray("c");
        for (Hit h : candidates) {
            ArrayNode c = cs.addArray();
            c.add(diaId.apply(h.id()));
            for (Map<String, Integer> r : l.ranks()) {
                Integer rank = r.get(h.id());
                c.add(rank == null ? 0 : rank);
            }
            boolean dateMatch = false;
            if (h.memory().conversationTime() != null && !terms.isEmpty()) {
                Map<QueryTime.Field, String> f = QueryTime.fields(h.memory().conversationTime());
                dateMatch = terms.stream().anyMatch(t -> t.value().equals(f.get(t.field())));
            }
            c.add(dateMatch ? 1 : 0);
            c.add(h.memory().metadata().getOrDefault("speaker", ""));
            c.add(h.scores().textScore() == null ? 0 : h.scores().textScore());
            c.add(h.scores().vectorScore() == null ? 0 : h.scores().vectorScore());
            c.add(h.scores().contextTextScore() == null ? 0 : h.scores().contextTextScore());
            c.add(h.scores().contextVectorScore() == null ? 0 : h.scores().contextVectorScore());
            c.add(pos.getOrDefault(h.id(), 99999) < 20 ? h.memory().text() : "");
            c.add(HybridFusion.asksQuestion(h.memory().text()) ? 1 : 0);
        }
        dumpOut.println(q);
        dumpOut.flush();
    }

    private static final Set<String> CALENDAR = Set.of(
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday");
    private static final Pattern NAME = Pattern.compile("\\b[A-Z][a-z]{2,}\\b");

    /** Capitalised words of the hits (names, places, titles) that the question does not say. */
    static String expansion(String question, List<String> ids, Map<String, Hit> hits) {
        String q = question.toLowerCase(Locale.ROOT);
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (String id : ids) {
            String text = hits.get(id).memory().text();
            int colon = text.indexOf(": ");
            Matcher m = NAME.matcher(colon < 0 ? text : text.substring(colon + 2));
            while (m.find()) {
                String w = m.group().toLowerCase(Locale.ROOT);
                if (!CALENDAR.contains(w) && !q.contains(w)) {
                    out.add(m.group());
                }
            }
        }
        return String.join(" ", out);
    }

    void print(PrintStream out) {
        out.println("fusion sweep (category 0 = overall): @1 @5 @10 @25 @50");
        if (tokenVectors != null) {
            out.printf(
                    Locale.ROOT,
                    "maxsim token vectors: %d queries %.1f ms each, %d bare texts %.1f ms each, %d texts + context"
                            + " %.1f ms each%n",
                    queryRuns,
                    queryNanos / 1e6 / Math.max(1, queryRuns),
                    tokenRuns[0],
                    tokenNanos[0] / 1e6 / Math.max(1, tokenRuns[0]),
                    tokenRuns[1],
                    tokenNanos[1] / 1e6 / Math.max(1, tokenRuns[1]));
        }
        for (Map.Entry<String, Map<Integer, double[]>> v : sums.entrySet()) {
            out.println(v.getKey());
            for (Map.Entry<Integer, double[]> c : v.getValue().entrySet()) {
                StringBuilder sb =
                        new StringBuilder(String.format(Locale.ROOT, "  %d %4d", c.getKey(), counts.get(c.getKey())));
                for (double x : c.getValue()) {
                    sb.append(String.format(Locale.ROOT, " %.3f", x / counts.get(c.getKey())));
                }
                out.println(sb);
            }
        }
    }
}
