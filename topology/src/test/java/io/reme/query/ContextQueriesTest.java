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
}
