package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetrievalTest {
    private static final String TWO_QUESTIONS =
            "Where does my cousin work at the Shenzhen design institute? When is the fair?";

    @Test
    void aClientsQueryIsSearchedWholeAndPerQuestionALookupWholeOnly() {
        assertEquals(
                List.of(
                        TWO_QUESTIONS,
                        "Where does my cousin work at the Shenzhen design institute?",
                        "When is the fair?"),
                Retrieval.CLIENT.texts(TWO_QUESTIONS));
        assertEquals(List.of(TWO_QUESTIONS), Retrieval.LOOKUP.texts(TWO_QUESTIONS));
        assertEquals(List.of("one question?"), Retrieval.CLIENT.texts("one question?"));
    }

    @Test
    void eachListIsReadDeepEnoughForWhatTheRetrievalDoesWithIt() {
        assertEquals(StandingInstructions.DEPTH, Retrieval.CLIENT.depth(5));
        assertEquals(SecondHop.DEPTH, new Retrieval("hop only", true, true, false).depth(5));
        assertEquals(StandingInstructions.DEPTH, new Retrieval("instructions only", true, false, true).depth(5));
        assertEquals(200, Retrieval.CLIENT.depth(200));
        assertEquals(5, Retrieval.LOOKUP.depth(5));
        // Read deeper than the candidates asked: the instructions look further down the hop's candidates.
        assertEquals(SecondHop.DEPTH, Retrieval.CLIENT.breadth(5));
        assertEquals(5, new Retrieval("instructions only", true, false, true).breadth(5));
        assertEquals(200, Retrieval.CLIENT.breadth(200));
        assertEquals(5, Retrieval.LOOKUP.breadth(5));
    }

    @Test
    void eachListIsHoppedThenTakenInTurn() {
        String asked = "How many days does the festival in Shenzhen take?";
        List<Hit> hits = hits(
                "The lantern festival is held in Shenzhen",
                "The book fair takes two days",
                "The food market takes three days",
                "The lantern festival takes nine days");
        assertEquals(List.of("h0", "h3", "h1"), ids(Retrieval.CLIENT.merge(List.of(asked), List.of(hits), 3)));
        // A standing instruction below the hop's hits comes up behind the first hit.
        List<Hit> ruled = new ArrayList<>(hits);
        ruled.add(new Hit(
                rec("rule", "Always give festival lengths in hours."), new Hit.Scores(0.1, null, null, null, null)));
        assertEquals(List.of("h0", "rule", "h3"), ids(Retrieval.CLIENT.merge(List.of(asked), List.of(ruled), 3)));
        assertEquals(List.of("h0", "h1", "h2"), ids(Retrieval.LOOKUP.merge(List.of(asked), List.of(hits), 3)));
        assertThrows(IllegalArgumentException.class, () -> Retrieval.CLIENT.merge(List.of(asked), List.of(), 3));
        assertThrows(IllegalArgumentException.class, () -> new Retrieval(" ", true, true, true));
    }

    @Test
    void eachQuestionBringsItsOwnEvidenceIntoTheTopK() throws IOException {
        try (MemoryIndex index = MemoryIndex.inMemory()) {
            index.upsert(rec("cousin", "my cousin works at the Shenzhen design institute"));
            index.upsert(rec("institute", "the design institute in Shenzhen is where my cousin's team works"));
            index.upsert(rec("shenzhen", "the design institute moved to a new building in Shenzhen"));
            index.upsert(rec("fair", "the book fair opens on Friday"));
            index.refresh();
            List<String> searched = new ArrayList<>();
            Retrieval.Search search = (text, depth, breadth) -> {
                searched.add(text + "@" + depth + "/" + breadth);
                return index.search(SearchQuery.text("acme", text, depth).withBreadth(breadth))
                        .hits();
            };

            List<String> whole = ids(Retrieval.LOOKUP.retrieve(TWO_QUESTIONS, 2, search));
            assertEquals(List.of(TWO_QUESTIONS + "@2/2"), searched);
            assertFalse(whole.contains("fair"), "the whole question's top two are both about the cousin");

            searched.clear();
            List<String> answer = ids(Retrieval.CLIENT.retrieve(TWO_QUESTIONS, 2, search));
            assertEquals(3, searched.size(), searched::toString);
            assertTrue(
                    searched.stream()
                            .allMatch(s -> s.endsWith("@" + StandingInstructions.DEPTH + "/" + SecondHop.DEPTH)),
                    searched::toString);
            assertEquals(2, answer.size(), answer::toString);
            assertEquals(whole.get(0), answer.get(0), "the whole question's best stays first");
            assertTrue(answer.contains("fair"), answer::toString);
        }
    }

    private static MemoryRecord rec(String id, String text) {
        return MemoryRecord.of(
                id, "acme", "alice", "s1", MemoryType.PERSONAL, text, Instant.parse("2026-01-01T00:00:00Z"));
    }

    private static List<Hit> hits(String... texts) {
        List<Hit> hits = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            hits.add(new Hit(rec("h" + i, texts[i]), new Hit.Scores(1.0 - i / 10.0, null, null, null, null)));
        }
        return hits;
    }

    private static List<String> ids(List<Hit> hits) {
        return hits.stream().map(Hit::id).toList();
    }
}
