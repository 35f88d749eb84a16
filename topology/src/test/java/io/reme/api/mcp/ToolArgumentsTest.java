package io.reme.api.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reme.api.memory.SearchRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolArgumentsTest {
    @Test
    void theSearchToolsOneUserBecomesTheRoutesListOfUsers() {
        SearchRequest request = new ToolArguments.Search(
                        "harbour", "u-1", List.of("personal"), 5, null, null, null, null, List.of(), List.of())
                .request();
        assertEquals(List.of("u-1"), request.users());
    }
}
