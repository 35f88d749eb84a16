package io.reme.api.memory;

import io.reme.api.ApiException;
import io.reme.search.QueryTerms;

/**
 * Bounds on a search's text, checked before the text is embedded or searched: its length in
 * characters ({@code reme.search.max-query-chars}) and the terms it becomes in the index's text
 * query ({@code reme.search.max-query-terms}, at most Lucene's clause limit, {@link QueryTerms#MAX_TERMS}).
 * Without them an 8 MB query took 14-19 s and gigabytes of heap, and one of more than 1,024 words
 * failed inside every partition's index.
 */
public record QueryLimits(int maxChars, int maxTerms) {
    public static final QueryLimits DEFAULT = new QueryLimits(4096, 512);

    public QueryLimits {
        if (maxChars < 1) {
            throw new IllegalArgumentException("maxChars must be positive (got " + maxChars + ")");
        }
        if (maxTerms < 1 || maxTerms > QueryTerms.MAX_TERMS) {
            throw new IllegalArgumentException(
                    "maxTerms must be in [1, " + QueryTerms.MAX_TERMS + "] (got " + maxTerms + ")");
        }
    }

    /** Throws a 400 {@code query_too_long} naming the limit when {@code text} is over one. */
    void check(String text) {
        if (text.length() > maxChars) {
            throw new ApiException(
                    400,
                    "query_too_long",
                    "'query' is longer than " + maxChars + " characters (got " + text.length()
                            + "); search with the gist, not the whole text");
        }
        if (QueryTerms.count(text, maxTerms) > maxTerms) {
            throw new ApiException(
                    400,
                    "query_too_long",
                    "'query' has more than " + maxTerms + " search terms; search with the gist, not the whole text");
        }
    }
}
