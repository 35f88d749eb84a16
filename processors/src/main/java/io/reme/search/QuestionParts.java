package io.reme.search;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A query that asks several questions at once ("我住的小区叫什么？另外，招聘会的规模是什么？", "Where does
 * my cousin work? And when is the fair?") is searched as a whole and once per question, and the lists
 * are taken in turn. One query ranks each question's evidence against the other's, so its top k rarely
 * holds both; each question alone finds its own. Measured on MemDaily, where 736 of 1,500 questions
 * ask two or more: recall@5 .854 to .882, recall@1 unchanged ({@code docs/evaluation.md}).
 */
public final class QuestionParts {
    /** A question shorter than this, its mark included, adds nothing of its own ("Why?", "为什么？"). */
    static final int MIN_CHARS = 5;
    /** A query asking more questions than this is searched as a whole only: each question costs a search. */
    public static final int MAX_QUESTIONS = 4;

    private QuestionParts() {}

    /**
     * The questions {@code text} asks, each ending with its question mark ({@code ?} or {@code ？}), when
     * it asks from two to {@link #MAX_QUESTIONS}; otherwise none, and the text is searched as it is.
     * Text after the last question mark ("Answer yes or no.") stays with the last question.
     */
    public static List<String> of(String text) {
        List<String> questions = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '?' || c == '？') {
                String question = text.substring(start, i + 1).strip();
                if (question.length() >= MIN_CHARS) {
                    questions.add(question);
                }
                start = i + 1;
            }
        }
        if (questions.size() < 2 || questions.size() > MAX_QUESTIONS) {
            return List.of();
        }
        String tail = text.substring(start).strip();
        if (!tail.isEmpty()) {
            int last = questions.size() - 1;
            questions.set(last, questions.get(last) + " " + tail);
        }
        return List.copyOf(questions);
    }

    /**
     * The lists taken in turn, rank by rank: the first of each, then the second of each, and so on; a
     * memory already taken is skipped. At most {@code k}. Each hit keeps the scores of the list it was
     * taken from, so the scores of the answer are not in order.
     */
    public static List<Hit> interleave(List<List<Hit>> lists, int k) {
        Map<String, Hit> taken = new LinkedHashMap<>();
        int longest = lists.stream().mapToInt(List::size).max().orElse(0);
        for (int rank = 0; rank < longest && taken.size() < k; rank++) {
            for (List<Hit> list : lists) {
                if (rank < list.size() && taken.size() < k) {
                    taken.putIfAbsent(list.get(rank).id(), list.get(rank));
                }
            }
        }
        return List.copyOf(taken.values());
    }
}
