package io.reme.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ContextQueriesTest {
    @Test
    void theServedContextIsTheDefaultAndTheWholeWindowIsAsked() {
        assertFalse(ContextQueries.wholeWindow(null));
        assertFalse(ContextQueries.wholeWindow(""));
        assertFalse(ContextQueries.wholeWindow("window=served"));
        assertTrue(ContextQueries.wholeWindow("window=all"));
    }

    @Test
    void anyOtherParameterIsA400NamingWindow() {
        for (String query : new String[] {"window=everything", "limit=5", "window=all&x=1"}) {
            ApiException e = assertThrows(ApiException.class, () -> ContextQueries.wholeWindow(query));
            assertEquals(400, e.status());
            assertTrue(e.getMessage().contains("'window'"), e.getMessage());
        }
    }

    @Test
    void aFormatIsAskedAloneOrWithTheWindowAndTravelsWithAForwardedRequest() {
        assertEquals(
                new ContextQueries.Request(false, ReadyContext.Format.OPENAI),
                ContextQueries.Request.parse("format=openai"));
        ContextQueries.Request both = ContextQueries.Request.parse("format=anthropic&window=all");
        assertEquals(new ContextQueries.Request(true, ReadyContext.Format.ANTHROPIC), both);
        assertEquals("?window=all&format=anthropic", both.query());
        assertEquals(
                "?format=openai",
                ContextQueries.Request.parse("window=served&format=openai").query());
        assertEquals("", ContextQueries.Request.parse("").query());
    }

    @Test
    void anUnknownFormatIsA400NamingFormatAndARepeatedParameterIsRefused() {
        ApiException unknown = assertThrows(ApiException.class, () -> ContextQueries.Request.parse("format=gemini"));
        assertEquals(400, unknown.status());
        assertTrue(unknown.getMessage().contains("'format'"), unknown.getMessage());
        ApiException twice =
                assertThrows(ApiException.class, () -> ContextQueries.Request.parse("format=openai&format=openai"));
        assertEquals(400, twice.status());
    }
}
