package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link PartitionMerge}: candidates of several partitions fused once, as one index would. */
class PartitionMergeTest {
    private static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");

    private static Hit hit(String id, Double text, Double vector) {
        return new Hit(
                new MemoryRecord(
                        id,
                        new MemoryRecord.Owner("acme", "alice", "s1"),
                        MemoryType.PERSONAL,
                        "text of " + id,
                        new MemoryRecord.Times(T0, T0, null),
                        Map.of(),
                        null,
                        MemoryRecord.Versions.FIRST,
                        null,
                        MemoryRecord.Vectors.of("m", null),
                        List.of()),
                new Hit.Scores(0.5, text, vector, null, null));
    }

    private static SearchQuery query(int k, FusionMode fusion) {
        return SearchQuery.builder("acme")
                .text("anything")
                .vector(new float[] {1, 0}, null)
                .k(k)
                .fusion(fusion)
                .build();
    }

    @Test
    void aPartitionWithOnlyWeakMatchesDoesNotWinWithItsOwnRankOne() {
        // Partition A: two strong candidates, each first in one list. Partition B: one weak text match,
        // which B alone ranks first (its own fused score would be the maximum, 1.0).
        List<Hit> a = List.of(hit("a1", 5.0, 0.8), hit("a2", 4.0, 0.9));
        List<Hit> b = List.of(hit("b1", 1.0, null));
        List<Hit> all = new ArrayList<>(b);
        all.addAll(a);

        List<Hit> merged = PartitionMerge.merge(all, query(3, FusionMode.RRF));

        assertEquals(List.of("a1", "a2", "b1"), merged.stream().map(Hit::id).toList());
        // a1: text rank 1, vector rank 2; b1: text rank 3 only.
        double best = 2.0 / 11;
        assertEquals((1.0 / 11 + 1.0 / 12) / best, merged.get(0).score(), 1e-12);
        assertEquals((1.0 / 13) / best, merged.get(2).score(), 1e-12);
        assertEquals(1.0, merged.get(2).scores().textScore());
        assertNull(merged.get(2).scores().vectorScore());
    }

    @Test
    void weightedFusionNormalisesOverAllPartitionsCandidates() {
        List<Hit> all = List.of(hit("a1", 10.0, 0.9), hit("b1", 2.0, 0.5), hit("b2", 1.0, 0.3));

        List<Hit> merged = PartitionMerge.merge(all, query(3, FusionMode.WEIGHTED));

        assertEquals(List.of("a1", "b1", "b2"), merged.stream().map(Hit::id).toList());
        assertEquals(1.0, merged.get(0).score(), 1e-12);
        double b1 = HybridFusion.TEXT_WEIGHT * (1.0 / 9) + HybridFusion.VECTOR_WEIGHT * (0.2 / 0.6);
        assertEquals(b1, merged.get(1).score(), 1e-12);
        assertEquals(0.0, merged.get(2).score(), 1e-12);
    }

    @Test
    void aQuestionIsWeighedDownAfterTheMergeAsInOneIndex() throws IOException {
        MemoryRecord question = MemoryRecord.of(
                "question", "acme", "alice", "s1", MemoryType.PERSONAL, "how did the kids handle the accident?", T0);
        MemoryRecord answer = MemoryRecord.of(
                "answer", "acme", "alice", "s1", MemoryType.PERSONAL, "the kids were scared but handled it", T0);
        SearchQuery q = SearchQuery.text("acme", "how did the kids handle the accident", 10)
                .withFusion(FusionMode.RRF);
        try (MemoryIndex left = MemoryIndex.inMemory();
                MemoryIndex right = MemoryIndex.inMemory()) {
            left.upsert(question);
            right.upsert(answer);
            left.refresh();
            right.refresh();
            List<Hit> all = new ArrayList<>(left.candidates(q).hits());
            all.addAll(right.candidates(q).hits());

            List<Hit> merged = PartitionMerge.merge(all, q);

            assertEquals(
                    List.of("answer", "question"), merged.stream().map(Hit::id).toList());
        }
    }

    @Test
    void minScoreAndKApplyAfterTheMerge() {
        List<Hit> all = List.of(hit("a1", 10.0, 0.9), hit("b1", 2.0, 0.5), hit("b2", 1.0, 0.3), hit("c1", 9.0, 0.85));

        List<Hit> top2 = PartitionMerge.merge(all, query(2, FusionMode.WEIGHTED));
        List<Hit> above =
                PartitionMerge.merge(all, query(10, FusionMode.WEIGHTED).withMinScore(0.5));

        assertEquals(List.of("a1", "c1"), top2.stream().map(Hit::id).toList());
        assertEquals(List.of("a1", "c1"), above.stream().map(Hit::id).toList());
    }

    @Test
    void eachListIsCutToTheCandidateDepthOfOneIndex() {
        // 150 text-only candidates from two partitions: only the best 100 (the depth one index asks
        // for at k = 10) take part, so the worst one cannot be returned even with k = 1000.
        List<Hit> all = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            all.add(hit((i % 2 == 0 ? "a" : "b") + i, 1000.0 - i, null));
        }
        SearchQuery q = query(10, FusionMode.RRF);

        List<Hit> merged = PartitionMerge.merge(all, q);
        List<Hit> deep = PartitionMerge.merge(all, q.withK(1000));

        assertEquals(
                List.of("a0", "b1", "a2", "b3", "a4", "b5", "a6", "b7", "a8", "b9"),
                merged.stream().map(Hit::id).toList());
        assertEquals(150, deep.size());
    }

    @Test
    void vectorSearchSplitOverTwoIndexesMatchesOneIndex() throws IOException {
        Random random = new Random(7);
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            float[] v = new float[8];
            for (int d = 0; d < v.length; d++) {
                v[d] = (float) random.nextGaussian();
            }
            records.add(MemoryRecord.of("m" + i, "acme", "alice", "s1", MemoryType.PERSONAL, "memory " + i, T0)
                    .withVector(v, "m"));
        }
        try (MemoryIndex one = MemoryIndex.inMemory();
                MemoryIndex left = MemoryIndex.inMemory();
                MemoryIndex right = MemoryIndex.inMemory()) {
            for (MemoryRecord r : records) {
                one.upsert(r);
                (Math.floorMod(r.id().hashCode(), 2) == 0 ? left : right).upsert(r);
            }
            one.refresh();
            left.refresh();
            right.refresh();
            for (int q = 0; q < 20; q++) {
                float[] target = new float[8];
                for (int d = 0; d < target.length; d++) {
                    target[d] = (float) random.nextGaussian();
                }
                SearchQuery query = SearchQuery.vector("acme", target, 10);
                List<Hit> candidates = new ArrayList<>(left.candidates(query).hits());
                candidates.addAll(right.candidates(query).hits());

                List<Hit> merged = PartitionMerge.merge(candidates, query);
                List<Hit> single = one.search(query).hits();

                assertEquals(
                        single.stream().map(Hit::id).toList(),
                        merged.stream().map(Hit::id).toList());
                for (int i = 0; i < single.size(); i++) {
                    assertEquals(single.get(i).score(), merged.get(i).score(), 1e-9);
                }
            }
            assertTrue(left.count() > 100 && right.count() > 100, "both halves hold memories");
        }
    }
}
