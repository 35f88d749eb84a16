package io.reme.trace;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The W3C trace context headers ({@code traceparent}, {@code tracestate}) as record headers. A record derived from
 * another carries its trace context on, so a trace runs from the producer (or the HTTP request) through the session
 * processor to the worker and its LLM call. Only a well-formed {@code traceparent} is carried (version {@code 00}'s
 * form, ids not all zeros), and a {@code tracestate} only beside one and up to {@value #MAX_TRACESTATE} bytes:
 * whatever a producer writes into a header, nothing else travels on under these names.
 */
public final class TraceHeaders {
    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";
    /** The W3C limit is 32 list members; their bytes are bounded here so a header cannot grow a derived record. */
    public static final int MAX_TRACESTATE = 512;

    /** No trace context: what a record derived from nothing traced carries. Read-only. */
    public static final Headers NONE = readOnly(new RecordHeaders());

    private TraceHeaders() {}

    /** The trace context of {@code headers} (the last of each name, as Kafka's readers take it), or {@link #NONE}. */
    public static Headers of(Headers headers) {
        if (headers == null) {
            return NONE;
        }
        return of(text(headers.lastHeader(TRACEPARENT)), text(headers.lastHeader(TRACESTATE)));
    }

    /** The trace context of an HTTP request's headers (null when absent), or {@link #NONE}. */
    public static Headers of(String traceparent, String tracestate) {
        if (!valid(traceparent)) {
            return NONE;
        }
        RecordHeaders trace = new RecordHeaders();
        trace.add(TRACEPARENT, traceparent.getBytes(StandardCharsets.US_ASCII));
        if (tracestate != null
                && !tracestate.isEmpty()
                && tracestate.length() <= MAX_TRACESTATE
                && tracestate.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            trace.add(TRACESTATE, tracestate.getBytes(StandardCharsets.US_ASCII));
        }
        return readOnly(trace);
    }

    /** The {@code traceparent} of {@code headers} if it is well-formed, else null. */
    public static String traceparent(Headers headers) {
        String value = headers == null ? null : text(headers.lastHeader(TRACEPARENT));
        return valid(value) ? value : null;
    }

    /**
     * A fresh, writable copy of the trace context {@code trace} for one derived record: Streams and the producer may
     * add to a record's headers on the way out, so records never share one set.
     */
    public static Headers copyOf(Headers trace) {
        return addTo(new RecordHeaders(), trace);
    }

    /** Adds the trace context {@code trace} (as {@link #of} gives it) to {@code headers}. */
    public static Headers addTo(Headers headers, Headers trace) {
        for (Header header : trace) {
            headers.add(header.key(), header.value());
        }
        return headers;
    }

    /**
     * Whether {@code value} is a W3C {@code traceparent}: {@code 00-<32 hex>-<16 hex>-<2 hex>}, lower case, the
     * trace and parent ids not all zeros. A later version's longer form is not carried: its fields are unknown.
     */
    public static boolean valid(String value) {
        if (value == null || value.length() != 55 || !value.startsWith("00-")) {
            return false;
        }
        if (value.charAt(35) != '-' || value.charAt(52) != '-' || value.charAt(2) != '-') {
            return false;
        }
        return hex(value, 3, 35) && hex(value, 36, 52) && hex(value, 53, 55);
    }

    /** Lower-case hex from {@code from} to {@code to}, not all zeros (the flags, two chars, may be). */
    private static boolean hex(String value, int from, int to) {
        boolean nonZero = to - from == 2;
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            boolean digit = c >= '0' && c <= '9';
            if (!digit && !(c >= 'a' && c <= 'f')) {
                return false;
            }
            nonZero |= c != '0';
        }
        return nonZero;
    }

    private static String text(Header header) {
        if (header == null || header.value() == null || header.value().length > MAX_TRACESTATE) {
            return null;
        }
        return new String(header.value(), StandardCharsets.US_ASCII);
    }

    private static Headers readOnly(RecordHeaders headers) {
        headers.setReadOnly();
        return headers;
    }
}
