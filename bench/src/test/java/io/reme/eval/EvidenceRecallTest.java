package io.reme.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EvidenceRecallTest {
    @Test
    void anyAllReciprocalRankAndNdcgOfOneQuestion() {
        // Evidence a and b at ranks 2 and 5 (a second a at rank 3 counts once).
        EvidenceRecall.Scores s = EvidenceRecall.score(List.of("x", "a", "a", "y", "b"), Set.of("a", "b"));
        assertArrayEquals(new double[] {0, 1, 1, 1, 1}, s.any(), 1e-9);
        assertArrayEquals(new double[] {0, 1, 1, 1, 1}, s.all(), 1e-9);
        assertArrayEquals(new double[] {0, 1, 1, 1, 1}, s.recall(), 1e-9);
        assertEquals(0.5, s.reciprocalRank(), 1e-9);
        // Distinct ranks x, a, y, b: gains at ranks 2 and 4 over the ideal's at 1 and 2.
        double log2of3 = Math.log(3) / Math.log(2);
        double expected = (1 / log2of3 + 1 / (Math.log(5) / Math.log(2))) / (1 + 1 / log2of3);
        assertEquals(expected, s.ndcg(), 1e-9);

        EvidenceRecall.Scores missed = EvidenceRecall.score(List.of("x", "y"), Set.of("a"));
        assertEquals(0, missed.reciprocalRank());
        assertEquals(0, missed.ndcg());
        assertArrayEquals(new double[5], missed.any(), 1e-9);

        EvidenceRecall.Scores first = EvidenceRecall.score(List.of("a", "b", "c"), Set.of("a", "b", "c"));
        assertEquals(1, first.ndcg(), 1e-9);
        assertEquals(1, first.reciprocalRank(), 1e-9);
        assertArrayEquals(new double[] {0, 1, 1, 1, 1}, first.all(), 1e-9);
        assertArrayEquals(new double[] {1, 1, 1, 1, 1}, first.any(), 1e-9);
    }

    @Test
    void averagedPerCategoryThenOverall() {
        EvidenceRecall recalls = new EvidenceRecall();
        recalls.add(2, List.of("a"), Set.of("a"));
        recalls.add(2, List.of("x", "a"), Set.of("a"));
        recalls.add(8, List.of("x"), Set.of("a", "b"));
        List<LocomoEval.Ranking> rankings = recalls.rankings();
        assertEquals(
                List.of("2 temporal", "8 ?", "overall"),
                rankings.stream().map(LocomoEval.Ranking::label).toList());
        assertEquals(0.75, rankings.get(0).mrr(), 1e-9);
        assertEquals(0.5, rankings.get(0).anyAtK()[0], 1e-9);
        assertEquals(0, rankings.get(1).mrr(), 1e-9);
        assertEquals(3, rankings.get(2).questions());
        assertEquals(1.5 / 3, rankings.get(2).mrr(), 1e-9);
        assertEquals(2 / 3.0, recalls.overall().at(5), 1e-9);
    }

    @Test
    void categoriesAreNamedAsTheirDataSetNamesThem() {
        assertEquals(EvidenceRecall.BEAM, EvidenceRecall.namesFor("beam-500k-3"));
        assertEquals(EvidenceRecall.MEMDAILY, EvidenceRecall.namesFor("01_simple_events-0"));
        assertEquals(EvidenceRecall.MEMDAILY, EvidenceRecall.namesFor("06_noisy-1234"));
        assertEquals(EvidenceRecall.LOCOMO, EvidenceRecall.namesFor("conv-26"));
        EvidenceRecall beam = new EvidenceRecall(EvidenceRecall.BEAM);
        beam.add(8, List.of("a"), Set.of("a"));
        assertEquals("8 summarization", beam.categories().get(0).label());
    }
}
