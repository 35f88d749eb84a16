package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.search.HybridFusion.Fused;
import io.reme.search.HybridFusion.Scored;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Fusion arithmetic on hand-built score lists. */
class HybridFusionTest {
    private static final double EPS = 1e-12;

    private static List<Scored> list(Object... idScore) {
        List<Scored> out = new ArrayList<>();
        for (int i = 0; i < idScore.length; i += 2) {
            out.add(new Scored((String) idScore[i], ((Number) idScore[i + 1]).doubleValue()));
        }
        return out;
    }

    private static List<String> ids(List<Fused> fused) {
        return fused.stream().map(Fused::id).toList();
    }

    private static Fused get(List<Fused> fused, String id) {
        return fused.stream().filter(f -> f.id().equals(id)).findFirst().orElseThrow();
    }

    // ---- weighted -------------------------------------------------------------------------------

    @Test
    void weightedNormalisesEachListAndMissingCountsAsZero() {
        List<Scored> text = list("a", 10, "b", 5, "c", 0); // normalised a 1, b 0.5, c 0
        List<Scored> vector = list("b", 0.9, "d", 0.5, "a", 0.1); // normalised b 1, d 0.5, a 0
        List<Fused> fused = HybridFusion.fuse(FusionMode.WEIGHTED, text, vector, 0, 10);

        assertEquals(List.of("b", "d", "a", "c"), ids(fused));
        assertEquals(0.3 * 0.5 + 0.7 * 1.0, get(fused, "b").score(), EPS);
        assertEquals(0.7 * 0.5, get(fused, "d").score(), EPS);
        assertEquals(0.3 * 1.0, get(fused, "a").score(), EPS);
        assertEquals(0.0, get(fused, "c").score(), EPS);
        // raw scores travel with the hit; absent from a list means null there
        assertEquals(5.0, get(fused, "b").textScore());
        assertEquals(0.9, get(fused, "b").vectorScore());
        assertNull(get(fused, "d").textScore());
        assertNull(get(fused, "c").vectorScore());
    }

    @Test
    void weightedTopOfBothListsScoresOne() {
        List<Fused> fused =
                HybridFusion.fuse(FusionMode.WEIGHTED, list("a", 3, "b", 1), list("a", 0.8, "b", 0.2), 0, 10);
        assertEquals(1.0, fused.get(0).score(), EPS);
        assertEquals(0.0, fused.get(1).score(), EPS);
    }

    @Test
    void weightedWithOneListIsThatListNormalised() {
        List<Scored> text = list("a", 8, "b", 6, "c", 4);
        List<Fused> textOnly = HybridFusion.fuse(FusionMode.WEIGHTED, text, null, 0, 10);
        assertEquals(List.of("a", "b", "c"), ids(textOnly));
        assertEquals(1.0, textOnly.get(0).score(), EPS);
        assertEquals(0.5, textOnly.get(1).score(), EPS);
        assertEquals(0.0, textOnly.get(2).score(), EPS);

        // an empty list takes no part, the same as an absent one
        assertEquals(textOnly, HybridFusion.fuse(FusionMode.WEIGHTED, text, List.of(), 0, 10));
        List<Fused> vectorOnly = HybridFusion.fuse(FusionMode.WEIGHTED, List.of(), text, 0, 10);
        assertEquals(
                List.of(1.0, 0.5, 0.0), vectorOnly.stream().map(Fused::score).toList());
    }

    @Test
    void weightedSingleCandidateOrAllEqualScoresGetOne() {
        assertEquals(
                1.0,
                HybridFusion.fuse(FusionMode.WEIGHTED, list("a", 0.3), null, 0, 10)
                        .get(0)
                        .score(),
                EPS);
        List<Fused> flat = HybridFusion.fuse(FusionMode.WEIGHTED, list("b", 2, "a", 2), null, 0, 10);
        assertEquals(List.of("a", "b"), ids(flat)); // tie broken by id
        assertEquals(1.0, flat.get(1).score(), EPS);
    }

    @Test
    void customWeightsAreRenormalised() {
        List<Fused> fused = HybridFusion.weighted(list("a", 1, "b", 0), list("b", 1, "a", 0), 1, 3);
        assertEquals(0.75, get(fused, "b").score(), EPS);
        assertEquals(0.25, get(fused, "a").score(), EPS);
        assertThrows(IllegalArgumentException.class, () -> HybridFusion.weighted(null, null, 0, 0));
    }

    // ---- RRF ------------------------------------------------------------------------------------

    @Test
    void rrfSumsReciprocalRanksScaledToOne() {
        List<Scored> text = list("a", 10, "b", 5, "c", 1);
        List<Scored> vector = list("b", 0.9, "d", 0.5, "a", 0.1);
        List<Fused> fused = HybridFusion.fuse(FusionMode.RRF, text, vector, 0, 10);
        double best = 2.0 / 11;
        assertEquals(List.of("b", "a", "d", "c"), ids(fused));
        assertEquals((1.0 / 12 + 1.0 / 11) / best, get(fused, "b").score(), EPS);
        assertEquals((1.0 / 11 + 1.0 / 13) / best, get(fused, "a").score(), EPS);
        assertEquals((1.0 / 12) / best, get(fused, "d").score(), EPS);
        assertEquals((1.0 / 13) / best, get(fused, "c").score(), EPS);
    }

    @Test
    void rrfTopOfEveryPresentListScoresOne() {
        assertEquals(
                1.0,
                HybridFusion.fuse(FusionMode.RRF, list("a", 2, "b", 1), list("a", 0.9), 0, 10)
                        .get(0)
                        .score(),
                EPS);
        List<Fused> one = HybridFusion.fuse(FusionMode.RRF, null, list("x", 0.2, "y", 0.1), 0, 10);
        assertEquals(1.0, one.get(0).score(), EPS);
        assertEquals(11.0 / 12, one.get(1).score(), EPS);
    }

    // ---- rank and score (the default) ------------------------------------------------------------

    @Test
    void rankAndScoreIsTheDefault() {
        assertEquals(
                FusionMode.RANK_AND_SCORE,
                SearchQuery.text("acme", "q", 1).ranking().fusion());
    }

    @Test
    void rankAndScoreCountsHowFarAheadAMemoryIsWhereRrfSeesATie() {
        // Each is first in one list and second in the other: "far" holds the rare words (BM25 10 against
        // 1), "close" is ahead by a hair in the vectors (.81 against .80).
        List<Scored> text = list("far", 10, "close", 1);
        List<Scored> vector = list("close", .81, "far", .80);

        assertEquals(List.of("close", "far"), ids(HybridFusion.fuse(FusionMode.RRF, text, vector, 0, 10)));
        List<Fused> fused = HybridFusion.fuse(FusionMode.RANK_AND_SCORE, text, vector, 0, 10);

        assertEquals(List.of("far", "close"), ids(fused));
        double rrf = (1.0 / 11 + 1.0 / 12) / (2.0 / 11);
        assertEquals((rrf + (1 + .80 / .81) / 2) / 2, get(fused, "far").score(), EPS);
        assertEquals((rrf + (.1 + 1) / 2) / 2, get(fused, "close").score(), EPS);
    }

    @Test
    void rankAndScoreGivesOneToTheBestOfEveryListAndNothingForANegativeCosine() {
        List<Fused> fused = HybridFusion.fuse(
                FusionMode.RANK_AND_SCORE,
                new HybridFusion.Candidates(
                        list("a", 3, "b", 1), list("a", .5, "b", -.2), list("a", 4), list("a", .6, "b", .3)),
                0,
                10);
        assertEquals(1.0, get(fused, "a").score(), EPS);
        double rrf = (3.0 / 12) / (4.0 / 11);
        assertEquals(
                (rrf + (1.0 / 3 + 0 + 0 + .3 / .6) / 4) / 2, get(fused, "b").score(), EPS);
    }

    @Test
    void aMemoryThatAsksAQuestionIsOneThatEndsWithAQuestionMark() {
        assertTrue(HybridFusion.asksQuestion("caroline: how did the kids handle it?"));
        assertTrue(HybridFusion.asksQuestion("how did it go? \n"));
        assertTrue(HybridFusion.asksQuestion("孩子们还好吗？"));
        assertFalse(HybridFusion.asksQuestion("did you hear? I got the job."));
        assertFalse(HybridFusion.asksQuestion("the kids were scared"));
        assertFalse(HybridFusion.asksQuestion(""));
        assertFalse(HybridFusion.asksQuestion(null));
    }

    @Test
    void aQuestionRanksBelowTheAnswerThatMatchedAlmostAsWell() {
        // The question repeats the search's words and is first; its answer is second in every list.
        List<Scored> text = list("question", 9, "answer", 8, "other", 1);
        List<Scored> vector = list("question", .9, "answer", .8);
        HybridFusion.Candidates lists = new HybridFusion.Candidates(text, vector, text, vector, Set.of("question"));

        List<Fused> fused = HybridFusion.fuse(FusionMode.RRF, lists, 0, 10);

        assertEquals(List.of("answer", "question", "other"), ids(fused));
        assertEquals(HybridFusion.QUESTION_WEIGHT, get(fused, "question").score(), EPS);
        assertEquals(11.0 / 12, get(fused, "answer").score(), EPS);
        // Without the flag the question keeps rank 1.
        assertEquals(
                "question",
                HybridFusion.fuse(FusionMode.RRF, new HybridFusion.Candidates(text, vector, text, vector), 0, 10)
                        .get(0)
                        .id());
    }

    @Test
    void aQuestionFarAheadOfEveryStatementStaysFirst() {
        // First in all four lists; every statement is second in one list only.
        HybridFusion.Candidates lists = new HybridFusion.Candidates(
                list("question", 9, "s2", 8),
                list("question", .9, "s3", .8),
                list("question", 9, "s4", 8),
                list("question", .9, "answer", .8),
                Set.of("question"));
        List<Fused> fused = HybridFusion.fuse(FusionMode.RRF, lists, 0, 2);
        assertEquals("question", fused.get(0).id());
        assertEquals(HybridFusion.QUESTION_WEIGHT, fused.get(0).score(), EPS);
    }

    @Test
    void rrfRankOneInThreeListsBeatsFifthInAllFour() {
        // The answer is first in three lists and missing from the fourth; its neighbour, whose context
        // holds the answer's words too, is fifth in all four. With k = 60 the neighbour won (4/65 against
        // 3/61): being in more lists outweighed being first.
        List<Scored> text = list("answer", 9, "t2", 8, "t3", 7, "t4", 6, "neighbour", 5);
        List<Scored> vector = list("answer", .9, "v2", .8, "v3", .7, "v4", .6, "neighbour", .5);
        List<Scored> contextText = list("answer", 9, "c2", 8, "c3", 7, "c4", 6, "neighbour", 5);
        List<Scored> contextVector = list("w1", .9, "w2", .8, "w3", .7, "w4", .6, "neighbour", .5);
        List<Fused> fused = HybridFusion.fuse(
                FusionMode.RRF, new HybridFusion.Candidates(text, vector, contextText, contextVector), 0, 3);
        assertEquals(List.of("answer", "neighbour"), ids(fused).subList(0, 2));
    }

    @Test
    void weightedRrfScalesEachListsReciprocalRank() {
        List<Scored> text = list("a", 10, "b", 5);
        List<Scored> vector = list("b", 0.9, "a", 0.1);
        List<Fused> fused = HybridFusion.rrf(text, vector, 1.0, 0.5);
        double best = 1.5 / 11;
        // a: text rank 1 (weight 1), vector rank 2 (weight 0.5); b the other way round: a wins.
        assertEquals(List.of("a", "b"), ids(fused));
        assertEquals((1.0 / 11 + 0.5 / 12) / best, get(fused, "a").score(), EPS);
        assertEquals((1.0 / 12 + 0.5 / 11) / best, get(fused, "b").score(), EPS);
        // Equal weights give plain RRF.
        assertEquals(ids(HybridFusion.rrf(text, vector)), ids(HybridFusion.rrf(text, vector, 2, 2)));
        assertEquals(1.0, HybridFusion.rrf(list("c", 1), null, 1.0, 0.5).get(0).score(), EPS);
        assertThrows(IllegalArgumentException.class, () -> HybridFusion.rrf(text, vector, 0, 0));
    }

    @Test
    void rrfRanksTiesById() {
        List<Fused> fused = HybridFusion.fuse(FusionMode.RRF, list("z", 1, "m", 1, "a", 1), null, 0, 10);
        assertEquals(List.of("a", "m", "z"), ids(fused));
    }

    // ---- common ---------------------------------------------------------------------------------

    @Test
    void duplicateIdsInAListKeepTheirBestScore() {
        for (FusionMode mode : FusionMode.values()) {
            List<Fused> fused = HybridFusion.fuse(mode, list("a", 1, "b", 3, "a", 5), list("b", 0.5, "b", 0.7), 0, 10);
            assertEquals(2, fused.size(), mode.name());
            assertEquals(5.0, get(fused, "a").textScore());
            assertEquals(0.7, get(fused, "b").vectorScore());
        }
    }

    @Test
    void orderDoesNotDependOnInputOrder() {
        List<Scored> text = new ArrayList<>();
        List<Scored> vector = new ArrayList<>();
        Random random = new Random(7);
        for (int i = 0; i < 60; i++) {
            text.add(new Scored("t" + (i % 40), random.nextInt(5))); // many ties, some duplicates
            vector.add(new Scored("t" + (i % 25 + 20), random.nextInt(3) / 2.0));
        }
        for (FusionMode mode : FusionMode.values()) {
            List<Fused> expected = HybridFusion.fuse(mode, text, vector, 0, 100);
            for (int round = 0; round < 5; round++) {
                List<Scored> t = new ArrayList<>(text);
                List<Scored> v = new ArrayList<>(vector);
                Collections.shuffle(t, random);
                Collections.shuffle(v, random);
                assertEquals(expected, HybridFusion.fuse(mode, t, v, 0, 100), mode.name());
            }
            for (int i = 1; i < expected.size(); i++) {
                Fused prev = expected.get(i - 1);
                Fused cur = expected.get(i);
                assertTrue(
                        prev.score() > cur.score()
                                || (prev.score() == cur.score() && prev.id().compareTo(cur.id()) < 0),
                        mode + " at " + i);
            }
        }
    }

    @Test
    void minScoreFiltersAfterFusionThenKTruncates() {
        List<Scored> text = list("a", 10, "b", 5, "c", 0);
        List<Scored> vector = list("b", 0.9, "d", 0.5, "a", 0.1);
        // fused: b 0.85, d 0.35, a 0.30, c 0
        assertEquals(List.of("b", "d"), ids(HybridFusion.fuse(FusionMode.WEIGHTED, text, vector, 0.34, 10)));
        assertEquals(List.of("b"), ids(HybridFusion.fuse(FusionMode.WEIGHTED, text, vector, 0.31, 1)));
        assertEquals(List.of(), ids(HybridFusion.fuse(FusionMode.WEIGHTED, text, vector, 0.9, 10)));
        // the same threshold means the same thing with one list: relative to the best possible
        assertEquals(List.of("a", "b"), ids(HybridFusion.fuse(FusionMode.WEIGHTED, text, null, 0.5, 10)));
        assertEquals(List.of("b", "d"), ids(HybridFusion.fuse(FusionMode.WEIGHTED, null, vector, 0.5, 10)));
        assertEquals(List.of("x"), ids(HybridFusion.fuse(FusionMode.RRF, list("x", 2, "y", 1), null, 1.0, 10)));
    }

    @Test
    void emptyInputsGiveNothingAndBadScoresAreRejected() {
        for (FusionMode mode : FusionMode.values()) {
            assertEquals(List.of(), HybridFusion.fuse(mode, null, null, 0, 10));
            assertEquals(List.of(), HybridFusion.fuse(mode, List.of(), List.of(), 0, 10));
        }
        assertThrows(IllegalArgumentException.class, () -> new Scored("a", Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new Scored("a", Double.POSITIVE_INFINITY));
    }

    @Test
    void contextListsThatRepeatTheTextListsOrderAsTheTwoListsDo() {
        List<Scored> text = list("a", 3, "b", 2, "c", 1);
        List<Scored> vector = list("c", 0.9, "a", 0.5, "b", 0.1);
        for (FusionMode mode : FusionMode.values()) {
            List<Fused> two = HybridFusion.fuse(mode, text, vector, 0, 10);
            List<Fused> four = HybridFusion.fuse(mode, new HybridFusion.Candidates(text, vector, text, vector), 0, 10);
            assertEquals(ids(two), ids(four), mode.name());
            for (int i = 0; i < two.size(); i++) {
                assertEquals(two.get(i).score(), four.get(i).score(), EPS, mode.name());
            }
        }
    }

    @Test
    void theContextListsBreakWhatTheTextListsLeaveOpen() {
        // "a" is first by text and "b" by vector, a tie; "b" is also first by its text with context.
        List<Scored> text = list("a", 2, "b", 1);
        List<Scored> vector = list("b", 0.9, "a", 0.5);
        List<Fused> fused = HybridFusion.fuse(
                FusionMode.RRF, new HybridFusion.Candidates(text, vector, list("b", 5, "a", 1), null), 0, 10);
        assertEquals(List.of("b", "a"), ids(fused));
        assertEquals(5.0, fused.get(0).contextTextScore(), EPS);
        assertNull(fused.get(0).contextVectorScore());
    }
}
