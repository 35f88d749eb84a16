package io.reme.api.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.api.ApiException;
import io.reme.search.Retrieval;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SearchRequestTest {
    @Test
    void aNullInAListIsRefusedByNameNotAnInternalError() {
        SearchRequest request = new SearchRequest(
                "harbour", null, null, null, null, Arrays.asList("u-1", null), null, null, null, null, null);
        ApiException e = assertThrows(ApiException.class, request::validate);
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("'users'"), e.getMessage());
    }

    @Test
    void aRetrievalIsNamedOrAClientsByDefault() {
        assertEquals(Retrieval.CLIENT, named(null).strategy());
        assertEquals(Retrieval.LOOKUP, named("lookup").strategy());
        ApiException e = assertThrows(ApiException.class, named("fastest")::validate);
        assertEquals(400, e.status());
        assertEquals("'retrieval' must be client or lookup (got 'fastest')", e.getMessage());
    }

    private static SearchRequest named(String retrieval) {
        return new SearchRequest("harbour", null, null, null, null, null, null, null, null, null, retrieval);
    }
}
