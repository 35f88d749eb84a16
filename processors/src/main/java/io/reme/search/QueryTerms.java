package io.reme.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.search.IndexSearcher;

/**
 * Counts the terms a search text becomes in {@link MemoryIndex}'s text query, so a caller can refuse
 * a text the index cannot search before anything else is spent on it. Each text field's query holds
 * one clause per token (repeats included), and Lucene refuses a query of more than
 * {@link #MAX_TERMS} clauses ({@code TooManyClauses}), measured in {@code QueryTermsTest}. Thread-safe.
 */
public final class QueryTerms {
    /** The most terms a text query may hold: Lucene's clause limit (1024 unless changed). */
    public static final int MAX_TERMS = IndexSearcher.getMaxClauseCount();

    private static final Analyzer ANALYZER = MemorySchema.newAnalyzer();

    private QueryTerms() {}

    /**
     * The clauses of the text query for {@code text}: the English field's words (stop words dropped,
     * each CJK ideograph a word) plus the CJK field's bigrams, since Lucene flattens the two fields'
     * disjunctions into one. Counts no further than {@code limit + 1}: enough to tell "too many".
     */
    public static int count(String text, int limit) {
        if (text == null || text.isBlank()) {
            return 0;
        }
        int english = count(MemorySchema.F_TEXT_EN, text, limit);
        return english > limit ? english : english + count(MemorySchema.F_TEXT_CJK, text, limit - english);
    }

    private static int count(String field, String text, int limit) {
        int tokens = 0;
        try (TokenStream stream = ANALYZER.tokenStream(field, text)) {
            stream.reset();
            while (tokens <= limit && stream.incrementToken()) {
                tokens++;
            }
            stream.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tokens;
    }
}
