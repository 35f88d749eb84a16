package io.reme.api.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.api.ApiException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SearchRequestTest {
    @Test
    void aNullInAListIsRefusedByNameNotAnInternalError() {
        SearchRequest request = new SearchRequest(
                "harbour", null, null, null, null, Arrays.asList("u-1", null), null, null, null, null);
        ApiException e = assertThrows(ApiException.class, request::validate);
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("'users'"), e.getMessage());
    }
}
