package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuestionPartsTest {
    @Test
    void aTextAskingSeveralQuestionsIsThoseQuestions() {
        assertEquals(List.of("我住的那个小区叫什么名字？", "另外，银行柜员招聘会的规模是什么？"), QuestionParts.of("我住的那个小区叫什么名字？另外，银行柜员招聘会的规模是什么？"));
        assertEquals(
                List.of("Where does my cousin work?", "And when does the book fair open?"),
                QuestionParts.of("Where does my cousin work? And when does the book fair open?"));
        // What follows the last question mark belongs to the last question.
        assertEquals(
                List.of("Did Nate win?", "Did Joanna sell a script? Answer yes or no."),
                QuestionParts.of("Did Nate win? Did Joanna sell a script? Answer yes or no."));
    }

    @Test
    void oneQuestionTooShortQuestionsOrTooManyAreSearchedWhole() {
        assertEquals(List.of(), QuestionParts.of("What did I decide about the release train?"));
        assertEquals(List.of(), QuestionParts.of("最近天气不错。我想问一下，趣跑购物节的规模是多少？"));
        assertEquals(List.of(), QuestionParts.of("no question mark at all"));
        // "Why?" adds nothing a search could use, so one question is left.
        assertEquals(List.of(), QuestionParts.of("Why? Where did Alice move last spring?"));
        assertEquals(List.of(), QuestionParts.of("Who is A? Who is B? Who is C? Who is D? Who is E?"));
        assertEquals(
                4, QuestionParts.of("Who is A? Who is B? Who is C? Who is D?").size());
    }

    @Test
    void listsAreTakenInTurnWithoutRepeatsUpToK() {
        Hit a = hit("a");
        Hit b = hit("b");
        Hit c = hit("c");
        Hit d = hit("d");
        List<List<Hit>> lists = List.of(List.of(a, b, c), List.of(a, d), List.of(c));
        assertEquals(List.of("a", "c", "b", "d"), ids(QuestionParts.interleave(lists, 10)));
        assertEquals(List.of("a", "c"), ids(QuestionParts.interleave(lists, 2)));
        assertEquals(List.of(), QuestionParts.interleave(List.of(List.of(), List.of()), 5));
    }

    private static MemoryRecord rec(String id, String text) {
        return MemoryRecord.of(
                id, "acme", "alice", "s1", MemoryType.PERSONAL, text, Instant.parse("2026-01-01T00:00:00Z"));
    }

    private static Hit hit(String id) {
        return new Hit(rec(id, "text of " + id), new Hit.Scores(0.5, null, null, null, null));
    }

    private static List<String> ids(List<Hit> hits) {
        return hits.stream().map(Hit::id).toList();
    }
}
