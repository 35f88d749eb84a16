package io.reme.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A retrieval strategy: which texts a query is searched as, how deep each list is read, and how the
 * lists become one answer. The service's search ({@code POST /v1/search}, the MCP tool), the workers'
 * lookups of similar memories and {@code eval locomo} each call one of these by name, so what the
 * evaluation measures is the product's own path, not a copy of it. How one text is searched (one
 * index, or the partitions of every instance) is the caller's.
 *
 * @param name what logs and reports call it
 * @param splitQuestions a query that asks two to {@link QuestionParts#MAX_QUESTIONS} questions is searched
 *     whole and once per question ({@link QuestionParts}), the lists taken in turn
 * @param secondHop each list is read {@link SecondHop#DEPTH} deep at least and re-ordered by its second hop
 *     ({@link SecondHop}) before it is cut
 * @param instructions each list is read {@link StandingInstructions#DEPTH} deep at least, and its best standing
 *     instruction moves up behind its first hit ({@link StandingInstructions}) after the hop
 */
public record Retrieval(String name, boolean splitQuestions, boolean secondHop, boolean instructions) {
    /** A client's search: questions split, each list hopped, the user's standing instructions brought up. */
    public static final Retrieval CLIENT = new Retrieval("client", true, true, true);
    /**
     * The workers' lookup of the memories nearest a new one: the text is a memory, not a question, so it is
     * searched whole and its list kept in fused order.
     */
    public static final Retrieval LOOKUP = new Retrieval("lookup", false, false, false);

    /** The strategies a search request may name. */
    public static final List<Retrieval> NAMED = List.of(CLIENT, LOOKUP);

    public Retrieval {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a retrieval needs a name");
        }
    }

    /** The strategy of {@link #NAMED} called {@code name}. */
    public static Retrieval named(String name) {
        for (Retrieval retrieval : NAMED) {
            if (retrieval.name().equals(name)) {
                return retrieval;
            }
        }
        throw new IllegalArgumentException("no retrieval named '" + name + "'; use " + names());
    }

    /** The names of {@link #NAMED}, as a message lists them: "client or lookup". */
    public static String names() {
        return String.join(" or ", NAMED.stream().map(Retrieval::name).toList());
    }

    /**
     * One text searched, its hits best first (at most {@code depth}), from the candidates a search of {@code breadth}
     * hits asks ({@link SearchQuery#withBreadth}); how is the caller's.
     */
    @FunctionalInterface
    public interface Search {
        List<Hit> search(String text, int depth, int breadth) throws IOException;
    }

    /** The texts {@code query} is searched as: itself first, then each question it asks, when split. */
    public List<String> texts(String query) {
        List<String> texts = new ArrayList<>(List.of(query));
        if (splitQuestions) {
            texts.addAll(QuestionParts.of(query));
        }
        return List.copyOf(texts);
    }

    /** How many hits each text's list is searched for, to answer {@code k}. */
    public int depth(int k) {
        return instructions ? Math.max(breadth(k), StandingInstructions.DEPTH) : breadth(k);
    }

    /**
     * Of how many hits each list's candidates are asked, to answer {@code k}: as many as the second hop reads, and
     * no more for the standing instructions, which read further down the same candidates ({@link #depth}).
     */
    public int breadth(int k) {
        return secondHop ? Math.max(k, SecondHop.DEPTH) : k;
    }

    /**
     * The answer of {@code k} hits from the lists of {@code texts} (as {@link #texts} gave them, in that
     * order): each list hopped when this strategy hops, its standing instruction brought up when this strategy
     * does, then taken in turn ({@link QuestionParts#interleave});
     * one list is that list cut to {@code k}.
     */
    public List<Hit> merge(List<String> texts, List<List<Hit>> lists, int k) {
        if (texts.size() != lists.size()) {
            throw new IllegalArgumentException(texts.size() + " texts but " + lists.size() + " lists");
        }
        List<List<Hit>> ordered = new ArrayList<>(lists.size());
        for (int i = 0; i < lists.size(); i++) {
            List<Hit> list = secondHop ? SecondHop.apply(texts.get(i), lists.get(i)) : lists.get(i);
            ordered.add(instructions ? StandingInstructions.upfront(list) : list);
        }
        return QuestionParts.interleave(ordered, k);
    }

    /** {@code query}'s {@code k} hits: each of its texts searched by {@code search}, the lists merged. */
    public List<Hit> retrieve(String query, int k, Search search) throws IOException {
        List<String> texts = texts(query);
        List<List<Hit>> lists = new ArrayList<>(texts.size());
        for (String text : texts) {
            lists.add(search.search(text, depth(k), breadth(k)));
        }
        return merge(texts, lists, k);
    }
}
