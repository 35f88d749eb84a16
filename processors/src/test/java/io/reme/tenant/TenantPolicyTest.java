package io.reme.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TenantPolicyTest {
    @Test
    void eachSessionFieldIsCheckedOnItsOwn() {
        TenantPolicy none = TenantPolicy.NONE;
        assertThrows(IllegalArgumentException.class, () -> none.withContext(0, null, null));
        assertThrows(IllegalArgumentException.class, () -> none.withContext(null, 0.0, null));
        assertThrows(IllegalArgumentException.class, () -> none.withContext(null, 1.5, null));
        assertThrows(IllegalArgumentException.class, () -> none.withContext(null, Double.NaN, null));
        assertThrows(IllegalArgumentException.class, () -> none.withContext(null, null, -1));
        assertThrows(IllegalArgumentException.class, () -> none.withPeriods(Duration.ofSeconds(30), null));
        assertThrows(IllegalArgumentException.class, () -> none.withPeriods(null, Duration.ofMinutes(1)));
    }

    @Test
    void periodsAreWrittenAsIsoDurationsAndReadBack() throws Exception {
        TenantRecord record = new TenantRecord(
                "acme",
                TenantStatus.ENABLED,
                Instant.EPOCH,
                new TenantPolicy(5.0, null, 2)
                        .withContext(32768, 0.8, 4000)
                        .withPeriods(Duration.ofMinutes(10), Duration.ofDays(7)));
        String json = new String(TenantEntries.bytes(record), StandardCharsets.UTF_8);
        assertEquals(true, json.contains("\"idleAfter\":\"PT10M\""), json);
        assertEquals(true, json.contains("\"retention\":\"PT168H\""), json);
        assertEquals(record, TenantEntries.tenant(TenantEntries.bytes(record)));
        TenantPolicy read = Json.MAPPER.readValue("{\"idleAfter\":\"PT5M\",\"retention\":\"P2D\"}", TenantPolicy.class);
        assertEquals(Duration.ofMinutes(5), read.idleAfter());
        assertEquals(Duration.ofDays(2), read.retention());
    }
}
