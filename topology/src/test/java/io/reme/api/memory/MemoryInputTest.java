package io.reme.api.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.reme.api.ApiException;
import io.reme.api.QueryString;
import io.reme.search.MemoryListQuery;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Instants callers send are ones the index can keep (epoch milliseconds), or a 400 naming the field. */
class MemoryInputTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "+1000000000-01-01T00:00:00Z",
                "-1000000000-01-01T00:00:00Z",
                "+10000-01-01T00:00:00Z",
                "1969-12-31T23:59:59Z",
                "yesterday",
                "2026-13-01T00:00:00Z"
            })
    void anInstantOutOfRangeOrNotAnInstantIs400(String value) {
        ApiException e = assertThrows(
                ApiException.class, () -> MemoryInput.instant("conversationTime", TextNode.valueOf(value)));
        assertEquals(400, e.status());
        assertEquals("invalid_memory", e.code());
        assertTrue(e.getMessage().startsWith("'conversationTime' must be an ISO-8601 instant between"), e::getMessage);
    }

    @Test
    void aNumberIsNotAnInstant() {
        ApiException e = assertThrows(
                ApiException.class, () -> MemoryInput.instant("invalid_query", "to", IntNode.valueOf(12345)));
        assertEquals("invalid_query", e.code());
        assertTrue(e.getMessage().contains("'to'"), e::getMessage);
    }

    @Test
    void theRangeEndsAreAccepted() {
        assertEquals(Instant.EPOCH, MemoryInput.instant("from", TextNode.valueOf("1970-01-01T00:00:00Z")));
        Instant last = MemoryInput.instant("to", TextNode.valueOf("9999-12-31T23:59:59.999Z"));
        assertEquals(253402300799999L, last.toEpochMilli());
    }

    @Test
    void aListingsBoundsAreChecked() {
        ApiException e = assertThrows(ApiException.class, () -> listQuery("from=%2B1000000000-01-01T00:00:00Z"));
        assertTrue(e.getMessage().contains("'from'"), e::getMessage);
        ApiException limit = assertThrows(ApiException.class, () -> listQuery("limit=many"));
        assertTrue(limit.getMessage().contains("'limit'"), limit::getMessage);
        ApiException type = assertThrows(ApiException.class, () -> listQuery("type=feelings"));
        assertTrue(type.getMessage().contains("'type'"), type::getMessage);
    }

    private static MemoryListQuery listQuery(String rawQuery) {
        return MemoryInput.listQuery("acme", MemoryListRequest.of(QueryString.parse(rawQuery, MemoryInput.INVALID)));
    }
}
