package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;

/** The count of {@link QueryTerms} is the one Lucene's clause limit applies to, in English, CJK and mixed text. */
class QueryTermsTest {

    private static String words(int n) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            text.append('w').append(Integer.toString(i, 36)).append("x ");
        }
        return text.toString();
    }

    /** {@code n} different CJK characters. */
    private static String cjk(int n) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            text.append((char) (0x4E00 + i));
        }
        return text.toString();
    }

    @Test
    void countsTokensOfTheLargerField() {
        assertEquals(0, QueryTerms.count("  ", 10));
        assertEquals(4, QueryTerms.count("rotate the logs every day", 10), "the English field drops stop words");
        assertEquals(3, QueryTerms.count("alpha alpha alpha", 10), "repeats are clauses too");
        assertEquals(9, QueryTerms.count(cjk(5), 10), "four bigrams, and the English field takes each ideograph");
        assertEquals(11, QueryTerms.count(words(500), 10), "counting stops past the limit");
    }

    @Test
    void aTextAtTheLimitSearchesAndOneTermMoreIsWhatLuceneRefuses() throws Exception {
        assertEquals(1024, QueryTerms.MAX_TERMS);
        try (MemoryIndex index = MemoryIndex.inMemory()) {
            index.upsert(new MemoryRecord(
                    "m1",
                    new MemoryRecord.Owner("t1", null, null),
                    MemoryType.PERSONAL,
                    "w0x w1x",
                    new MemoryRecord.Times(Instant.EPOCH, Instant.EPOCH, null),
                    null,
                    null,
                    MemoryRecord.Versions.FIRST,
                    null,
                    MemoryRecord.Vectors.NONE,
                    List.of()));
            index.refresh();
            for (String text : new String[] {
                words(QueryTerms.MAX_TERMS),
                cjk(QueryTerms.MAX_TERMS / 2) + " a1",
                "alpha ".repeat(QueryTerms.MAX_TERMS)
            }) {
                assertEquals(QueryTerms.MAX_TERMS, QueryTerms.count(text, QueryTerms.MAX_TERMS), text.substring(0, 9));
                index.search(SearchQuery.text("t1", text, 10));
            }
            for (String text : new String[] {
                words(QueryTerms.MAX_TERMS + 1),
                cjk(QueryTerms.MAX_TERMS / 2) + " a1 b2",
                "alpha ".repeat(QueryTerms.MAX_TERMS + 1)
            }) {
                assertEquals(QueryTerms.MAX_TERMS + 1, QueryTerms.count(text, QueryTerms.MAX_TERMS));
                assertThrows(IndexSearcher.TooManyClauses.class, () -> index.search(SearchQuery.text("t1", text, 10)));
            }
        }
    }
}
