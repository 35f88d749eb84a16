package io.reme.search;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.lucene.analysis.en.EnglishAnalyzer;

/**
 * The second hop of a question that names a thing by one of its facts and asks another ("the event
 * in Shenzhen: how long does it last?"). The first hit is usually the fact named ("the reporters'
 * retreat is in Shenzhen"); what answers is another memory about the same thing ("the reporters'
 * retreat lasts seven days"), which shares the thing's name with the first hit but not the question's
 * words, and ranks below memories that give the asked fact of other things. So a list is re-ordered
 * once: after its first hit come the hits that share at least half of the words the first hit adds to
 * the question (its thing) and at least one word of the question the first hit lacks (the fact asked),
 * in their order; then the rest, in theirs. Words are Han bigrams for a question with Han characters,
 * else lower-cased words without English stop words. Measured on MemDaily dev: recall@5 .882 to .902,
 * LoCoMo dev recall@10 .819 to .820 (see {@code docs/evaluation.md}).
 */
public final class SecondHop {
    /** Hits below this rank are never moved: a list is searched this deep for the hop, then cut. */
    public static final int DEPTH = 20;
    /** The share of the first hit's own words a hit must hold to be about the same thing. */
    static final double SHARE = 0.5;

    private SecondHop() {}

    /**
     * {@code hits} re-ordered for {@code query} as the class says; the same list when the first hit adds
     * no word to the query or has every word of it. Each hit keeps its scores, so a moved one breaks the
     * score order.
     */
    public static List<Hit> apply(String query, List<Hit> hits) {
        if (hits.size() < 3) {
            return hits;
        }
        boolean han = hasHan(query);
        Set<String> asked = words(query, han);
        Set<String> first = words(hits.get(0).memory().text(), han);
        Set<String> named = new HashSet<>(first);
        named.removeAll(asked);
        Set<String> lacking = new HashSet<>(asked);
        lacking.removeAll(first);
        if (named.isEmpty() || lacking.isEmpty()) {
            return hits;
        }
        List<Hit> moved = new ArrayList<>(List.of(hits.get(0)));
        List<Hit> rest = new ArrayList<>();
        int depth = Math.min(hits.size(), DEPTH);
        for (Hit hit : hits.subList(1, depth)) {
            Set<String> words = words(hit.memory().text(), han);
            int shared = 0;
            for (String word : named) {
                if (words.contains(word)) {
                    shared++;
                }
            }
            boolean asksFact = words.stream().anyMatch(lacking::contains);
            (shared >= SHARE * named.size() && asksFact ? moved : rest).add(hit);
        }
        if (moved.size() == 1) {
            return hits;
        }
        moved.addAll(rest);
        moved.addAll(hits.subList(depth, hits.size()));
        return List.copyOf(moved);
    }

    private static boolean hasHan(String text) {
        return text.codePoints().anyMatch(SecondHop::isHan);
    }

    private static boolean isHan(int codePoint) {
        return Character.UnicodeScript.of(codePoint) == Character.UnicodeScript.HAN;
    }

    /** Han bigrams of each run of Han characters, or the text's words without English stop words. */
    static Set<String> words(String text, boolean han) {
        Set<String> words = new HashSet<>();
        int[] points = text.codePoints().toArray();
        int start = 0;
        while (start < points.length) {
            int end = start;
            if (han) {
                while (end < points.length && isHan(points[end])) {
                    end++;
                }
                for (int i = start; i + 1 < end; i++) {
                    words.add(new String(points, i, 2));
                }
            } else {
                while (end < points.length && Character.isLetterOrDigit(points[end])) {
                    end++;
                }
                String word = new String(points, start, end - start).toLowerCase(Locale.ROOT);
                if (word.length() > 1 && !EnglishAnalyzer.ENGLISH_STOP_WORDS_SET.contains(word)) {
                    words.add(word);
                }
            }
            start = Math.max(end, start + 1);
        }
        return words;
    }
}
