package io.reme.api.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema;
import io.reme.api.ApiException;
import io.reme.api.Callers;
import io.reme.api.QueryString;
import io.reme.api.context.MessageIngest;
import io.reme.api.memory.MemoryInput;
import io.reme.api.memory.MemoryListRequest;
import io.reme.api.tenant.ApiKeys;
import io.reme.api.tenant.MapStore;
import io.reme.api.tenant.TenantAdmin;
import io.reme.api.tenant.TenantDirectory;
import io.reme.api.tenant.TenantQuotas;
import io.reme.api.tenant.TenantSetup;
import io.reme.edge.Authenticator;
import io.reme.edge.McpEndpoint;
import io.reme.json.Json;
import io.reme.message.TimeBounds;
import io.reme.tenant.TenantEntries;
import io.reme.tenant.TenantPolicy;
import io.reme.tenant.TenantRecord;
import io.reme.tenant.TenantStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class McpToolsTest {
    private static final ApiKeys KEYS =
            ApiKeys.parse("acme:acme-key-0123456789abcdef,globex:globex-key-0123456789abcdef");

    @Test
    void theCallersTenantComesFromItsKeyAndNothingElse() {
        McpTransportContext acme = McpEndpoint.callerContext(
                new Authenticator(TenantSetup.staticOnly(KEYS), null), "Bearer acme-key-0123456789abcdef");
        assertEquals(Callers.tenant("acme", "Bearer acme-key-0123456789abcdef"), McpTools.callerOf(acme));
        for (String header : new String[] {null, "", "Bearer nope-0123456789abcdef", "acme-key-0123456789abcdef"}) {
            McpTransportContext none =
                    McpEndpoint.callerContext(new Authenticator(TenantSetup.staticOnly(KEYS), null), header);
            assertNull(none.get(McpTools.CALLER), String.valueOf(header));
            ApiException refused = assertThrows(ApiException.class, () -> McpTools.callerOf(none));
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
    void listArgumentsBindToTheRequestTheQueryStringBindsTo() {
        ObjectNode args = (ObjectNode) Json.MAPPER.valueToTree(Map.of(
                "type",
                List.of("personal", "tool"),
                "target",
                "a b&c",
                "limit",
                5,
                "meta",
                Map.of("source", "chat=1")));
        assertEquals(
                MemoryListRequest.of(QueryString.parse(
                        "type=personal&type=tool&target=a+b%26c&limit=5&meta.source=chat%3D1", MemoryInput.INVALID)),
                MemoryListRequest.of(args));
        assertEquals(MemoryListRequest.of(QueryString.empty()), MemoryListRequest.of(Json.MAPPER.createObjectNode()));
        ApiException unknown = assertThrows(
                ApiException.class, () -> MemoryListRequest.of(Json.MAPPER.valueToTree(Map.of("colour", "red"))));
        assertEquals(MemoryInput.INVALID, unknown.code());
    }

    @Test
    void aToolErrorCarriesTheApisCodeMessageAndStatus() {
        Map<String, Object> error = McpTools.error(new ApiException(404, "memory_not_found", "no memory m1"));
        assertEquals(
                Map.of("error", Map.of("code", "memory_not_found", "message", "no memory m1", "status", 404)), error);
    }

    @Test
    void appendMessagesCountsEachEnvelopeAgainstTheTenantsMessageQuota() {
        NavigableMap<String, byte[]> entries = new TreeMap<>();
        TenantDirectory directory = new TenantDirectory(KEYS, () -> new MapStore(entries), Clock.systemUTC());
        entries.put(
                TenantEntries.tenantKey("acme"),
                TenantEntries.bytes(new TenantRecord(
                        "acme", TenantStatus.ENABLED, Instant.EPOCH, new TenantPolicy(null, 3.0, null))));
        AtomicLong nanos = new AtomicLong();
        TenantQuotas quotas = new TenantQuotas(directory, null, nanos::get);
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        McpTools tools = new McpTools(
                null,
                null,
                null,
                new MessageIngest(producer, "reme.messages", 1 << 20, TimeBounds.DEFAULT),
                null,
                null,
                quotas);
        Authenticator keys =
                new Authenticator(new TenantSetup(directory, TenantAdmin.disabled(directory), quotas), null);
        McpTransportContext acme = McpEndpoint.callerContext(keys, "Bearer acme-key-0123456789abcdef");
        McpTransportContext globex = McpEndpoint.callerContext(keys, "Bearer globex-key-0123456789abcdef");

        assertFalse(tools.call("append_messages", acme, twoMessages("a"), tools::append)
                .isError());
        McpSchema.CallToolResult refused = tools.call("append_messages", acme, twoMessages("b"), tools::append);
        assertTrue(refused.isError(), "two more messages in the same second are past 3 messages per second");
        assertEquals(
                Map.of("code", "too_many_requests", "status", 429, "retryAfter", 1),
                withoutMessage(refused.structuredContent()));
        assertEquals(2, producer.history().size(), "a refused call produces nothing");
        for (int i = 0; i < 5; i++) {
            assertFalse(
                    tools.call("append_messages", globex, twoMessages("g" + i), tools::append)
                            .isError(),
                    "another tenant is not held");
        }
        nanos.addAndGet(1_000_000_000L);
        assertFalse(
                tools.call("append_messages", acme, twoMessages("c"), tools::append)
                        .isError(),
                "a second later it may again");
    }

    private static McpSchema.CallToolRequest twoMessages(String prefix) {
        List<Map<String, Object>> messages = List.of(
                Map.of("id", prefix + "1", "role", "user", "content", "hello", "time", "2026-12-01T10:00:00Z"),
                Map.of("id", prefix + "2", "role", "assistant", "content", "hi", "time", "2026-12-01T10:00:01Z"));
        return McpSchema.CallToolRequest.builder("append_messages")
                .arguments(Map.of("session", "s1", "user", "u1", "messages", messages))
                .build();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutMessage(Object content) {
        Map<String, Object> error = new HashMap<>((Map<String, Object>) ((Map<String, Object>) content).get("error"));
        error.remove("message");
        return error;
    }
}
