package io.reme.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class TraceHeadersTest {
    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aWellFormedTraceparentIsVersionZerosFormWithIdsNotAllZeros() {
        assertTrue(TraceHeaders.valid(PARENT));
        assertTrue(TraceHeaders.valid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"), "not sampled");
        assertFalse(TraceHeaders.valid(null));
        assertFalse(TraceHeaders.valid(""));
        assertFalse(TraceHeaders.valid(PARENT.toUpperCase(Locale.ROOT)), "upper-case hex");
        assertFalse(TraceHeaders.valid("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), "zero trace id");
        assertFalse(TraceHeaders.valid("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"), "zero parent id");
        assertFalse(TraceHeaders.valid("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), "another version");
        assertFalse(TraceHeaders.valid(PARENT + "-extra"));
        assertFalse(TraceHeaders.valid("00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"), "not hex");
        assertFalse(TraceHeaders.valid("00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01"));
    }

    @Test
    void onlyAValidParentAndABoundedStateBesideItAreCarried() {
        Headers carried = TraceHeaders.of(PARENT, "a=1,b=2");
        assertEquals(PARENT, TraceHeaders.traceparent(carried));
        assertEquals("a=1,b=2", new String(carried.lastHeader("tracestate").value(), StandardCharsets.US_ASCII));
        assertFalse(TraceHeaders.of("junk", "a=1").iterator().hasNext(), "no state without a valid parent");
        Headers bigState = TraceHeaders.of(PARENT, "a=" + "x".repeat(TraceHeaders.MAX_TRACESTATE));
        assertNull(bigState.lastHeader("tracestate"), "a state over the bound is dropped, the parent kept");
        assertEquals(PARENT, TraceHeaders.traceparent(bigState));
        assertNull(TraceHeaders.of(PARENT, "a=\u0001").lastHeader("tracestate"), "control characters");
    }

    @Test
    void theLastHeaderOfARecordCountsAndOtherHeadersStay() {
        RecordHeaders record = new RecordHeaders();
        record.add("traceparent", "junk".getBytes(StandardCharsets.US_ASCII));
        record.add("traceparent", PARENT.getBytes(StandardCharsets.US_ASCII));
        record.add("reme-signature", new byte[] {1, 2, 3});
        Headers trace = TraceHeaders.of(record);
        assertEquals(PARENT, TraceHeaders.traceparent(trace));
        assertNull(trace.lastHeader("reme-signature"), "only the trace context is carried");
        RecordHeaders derived = new RecordHeaders();
        derived.add("x", new byte[] {9});
        TraceHeaders.addTo(derived, trace);
        assertEquals(PARENT, TraceHeaders.traceparent(derived));
        assertEquals(9, derived.lastHeader("x").value()[0]);
        assertFalse(TraceHeaders.of((Headers) null).iterator().hasNext());
    }
}
