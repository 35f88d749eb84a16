package io.reme.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.common.McpTransportContext;
import io.reme.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class McpToolsTest {
    private static final ApiKeys KEYS =
            ApiKeys.parse("acme:acme-key-0123456789abcdef,globex:globex-key-0123456789abcdef");

    @Test
    void theCallersTenantComesFromItsKeyAndNothingElse() {
        McpTransportContext acme = McpEndpoint.callerContext(
                new Authenticator(TenantSetup.staticOnly(KEYS)), "Bearer acme-key-0123456789abcdef");
        assertEquals(new McpTools.Caller("acme", "Bearer acme-key-0123456789abcdef"), McpTools.Caller.of(acme));
        for (String header : new String[] {null, "", "Bearer nope-0123456789abcdef", "acme-key-0123456789abcdef"}) {
            McpTransportContext none =
                    McpEndpoint.callerContext(new Authenticator(TenantSetup.staticOnly(KEYS)), header);
            assertNull(none.get(McpEndpoint.TENANT), String.valueOf(header));
            ApiException refused = assertThrows(ApiException.class, () -> McpTools.Caller.of(none));
            assertEquals(401, refused.status());
            assertEquals("unauthorized", refused.code());
        }
    }

    @Test
    void onlyTheMcpPathAndWhatIsUnderItGoToTheTransport() {
        assertTrue(McpEndpoint.serves("/mcp"));
        assertTrue(McpEndpoint.serves("/mcp/x"));
        assertFalse(McpEndpoint.serves("/mcpx"));
        assertFalse(McpEndpoint.serves("/v1/mcp"));
        assertFalse(McpEndpoint.serves("/"));
    }

    @Test
    void listArgumentsBecomeTheRoutesQueryStringEncoded() {
        ObjectNode args = (ObjectNode) Json.MAPPER.valueToTree(Map.of(
                "type",
                List.of("personal", "tool"),
                "target",
                "a b&c",
                "limit",
                5,
                "meta",
                Map.of("source", "chat=1")));
        String query = McpTools.listQuery(args);
        assertEquals(
                Set.of("type=personal%2Ctool", "target=a+b%26c", "limit=5", "meta.source=chat%3D1"),
                Set.of(query.split("&")),
                query);
        assertEquals("", McpTools.listQuery(Json.MAPPER.createObjectNode()));
    }

    @Test
    void aToolErrorCarriesTheApisCodeMessageAndStatus() {
        Map<String, Object> error = McpTools.error(new ApiException(404, "memory_not_found", "no memory m1"));
        assertEquals(
                Map.of("error", Map.of("code", "memory_not_found", "message", "no memory m1", "status", 404)), error);
    }
}
