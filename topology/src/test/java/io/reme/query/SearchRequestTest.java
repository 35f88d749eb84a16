package io.reme.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SearchRequestTest {
    @Test
    void theSearchToolsOneUserBecomesTheRoutesListOfUsers() {
        SearchRequest request = new ToolArguments.Search(
                        "harbour", "u-1", List.of("personal"), 5, null, null, null, null, List.of(), List.of())
                .request();
        assertEquals(List.of("u-1"), request.users());
    }

    @Test
    void aNullInAListIsRefusedByNameNotAnInternalError() {
        SearchRequest request = new SearchRequest(
                "harbour", null, null, null, null, Arrays.asList("u-1", null), null, null, null, null);
        ApiException e = assertThrows(ApiException.class, request::validate);
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("'users'"), e.getMessage());
    }
}
