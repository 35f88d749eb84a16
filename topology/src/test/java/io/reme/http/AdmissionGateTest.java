package io.reme.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The bound on requests handed to workers: threads plus the queue, health checks always let in. */
class AdmissionGateTest {

    @Test
    void aFullGateRefusesUntilOneLeavesButLetsHealthChecksIn() {
        AdmissionGate gate = AdmissionGate.of(new HttpSettings(Duration.ofSeconds(30), 8, 2, 16_384, 1024));
        for (int i = 0; i < 10; i++) {
            assertTrue(gate.enter(false), "request " + i);
        }
        assertFalse(gate.enter(false), "the eleventh waits for nothing: 503");
        assertEquals(10, gate.inside(), "a refused request leaves no trace");
        assertTrue(gate.enter(true), "a health check gets in anyway");
        gate.leave();
        gate.leave();
        assertTrue(gate.enter(false));
        assertFalse(gate.enter(false));
    }
}
