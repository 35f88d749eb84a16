package io.reme.api.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.api.ApiException;
import io.reme.api.QueryString;
import org.junit.jupiter.api.Test;

class ContextQueriesTest {
    @Test
    void theServedContextIsTheDefaultAndTheWholeWindowIsAsked() {
        assertFalse(wholeWindow(null));
        assertFalse(wholeWindow(""));
        assertFalse(wholeWindow("window=served"));
        assertTrue(wholeWindow("window=all"));
    }

    @Test
    void anyOtherParameterIsA400NamingWindow() {
        for (String query : new String[] {"window=everything", "limit=5", "window=all&x=1"}) {
            ApiException e = assertThrows(ApiException.class, () -> wholeWindow(query));
            assertEquals(400, e.status());
            assertTrue(e.getMessage().contains("'window'"), e.getMessage());
        }
    }

    @Test
    void aFormatIsAskedAloneOrWithTheWindowAndTravelsWithAForwardedRequest() {
        assertEquals(new ContextQueries.Request(false, ReadyContext.Format.OPENAI), parse("format=openai"));
        ContextQueries.Request both = parse("format=anthropic&window=all");
        assertEquals(new ContextQueries.Request(true, ReadyContext.Format.ANTHROPIC), both);
        assertEquals("?window=all&format=anthropic", both.query());
        assertEquals("?format=openai", parse("window=served&format=openai").query());
        assertEquals("", parse("").query());
    }

    @Test
    void anUnknownFormatIsA400NamingFormatAndARepeatedParameterIsRefused() {
        ApiException unknown = assertThrows(ApiException.class, () -> parse("format=gemini"));
        assertEquals(400, unknown.status());
        assertTrue(unknown.getMessage().contains("'format'"), unknown.getMessage());
        ApiException twice = assertThrows(ApiException.class, () -> parse("format=openai&format=openai"));
        assertEquals(400, twice.status());
    }

    private static ContextQueries.Request parse(String rawQuery) {
        return ContextQueries.Request.of(QueryString.parse(rawQuery, "invalid_query"));
    }

    private static boolean wholeWindow(String rawQuery) {
        return parse(rawQuery).wholeWindow();
    }

    @Test
    void theToolsArgumentsBindToTheSameRequest() {
        assertEquals(new ContextQueries.Request(true, null), ContextQueries.Request.of("all", null));
        assertEquals(
                new ContextQueries.Request(false, ReadyContext.Format.ANTHROPIC),
                ContextQueries.Request.of(null, "anthropic"));
        assertEquals(
                400,
                assertThrows(ApiException.class, () -> ContextQueries.Request.of("everything", null))
                        .status());
    }
}
