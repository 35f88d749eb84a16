package io.reme.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecordTracingTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PARENT + "-01";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();
    private final RecordTracing tracing = new RecordTracing(sdk);

    @AfterEach
    void close() {
        sdk.close();
    }

    @Test
    void aTracedRecordIsProcessedInAChildSpanWhoseContextItsOutputsCarry() {
        AtomicReference<Headers> carried = new AtomicReference<>();
        tracing.process(headers(TRACEPARENT, "vendor=1"), "reme.messages", "acme", carried::set);

        SpanData span = only();
        assertEquals("process reme.messages", span.getName());
        assertEquals(SpanKind.CONSUMER, span.getKind());
        assertEquals(TRACE_ID, span.getTraceId());
        assertEquals(PARENT, span.getParentSpanId());
        assertEquals("acme", span.getAttributes().get(RecordTracing.TENANT));
        assertEquals(
                "00-" + TRACE_ID + "-" + span.getSpanId() + "-01",
                TraceHeaders.traceparent(carried.get()),
                "what the record causes continues from this step's span");
        assertEquals("vendor=1", text(carried.get(), TraceHeaders.TRACESTATE), "the vendors' state travels on");
    }

    @Test
    void aRecordWithoutATraceStartsNone() {
        AtomicReference<Headers> carried = new AtomicReference<>();
        tracing.process(new RecordHeaders(), "reme.messages", "acme", carried::set);
        tracing.process(headers("00-" + TRACE_ID + "-" + PARENT, null), "reme.messages", "acme", carried::set);

        assertTrue(spans.getFinishedSpanItems().isEmpty(), "no root span per untraced or malformed record");
        assertSame(TraceHeaders.NONE, carried.get());
    }

    @Test
    void offTheRecordsOwnContextIsCarriedAsItCame() {
        AtomicReference<Headers> carried = new AtomicReference<>();
        RecordTracing.OFF.process(headers(TRACEPARENT, "vendor=1"), "reme.messages", "acme", carried::set);
        assertEquals(TRACEPARENT, TraceHeaders.traceparent(carried.get()));
        assertEquals("vendor=1", text(carried.get(), TraceHeaders.TRACESTATE));

        new RecordTracing(OpenTelemetry.noop())
                .process(headers(TRACEPARENT, null), "reme.messages", "acme", carried::set);
        assertEquals(TRACEPARENT, TraceHeaders.traceparent(carried.get()), "the API without an SDK is off");
        assertTrue(spans.getFinishedSpanItems().isEmpty());
    }

    @Test
    void aFailureMarksTheSpanAndReachesTheCallerUnchanged() {
        IllegalStateException failure = new IllegalStateException("store closed");
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> tracing.process(headers(TRACEPARENT, null), "reme.diary.edits", "acme", trace -> {
                    throw failure;
                }));
        assertSame(failure, thrown);
        SpanData span = only();
        assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode());
        assertEquals(1, span.getEvents().size(), "the exception is recorded");
    }

    @Test
    void aMemoryOperationInATraceIsASpanOfItWithTheConventionsAttributes() {
        List<String> hits;
        try (Scope _ = RecordTracing.parent(TraceHeaders.of(TRACEPARENT, null)).makeCurrent()) {
            hits = tracing.memoryOperation(
                    "search_memory", "reme.memories", "acme", () -> List.of("m1", "m2", "m3"), List::size);
        }
        assertEquals(3, hits.size());
        SpanData span = only();
        assertEquals("search_memory reme.memories", span.getName());
        assertEquals(TRACE_ID, span.getTraceId());
        assertEquals(PARENT, span.getParentSpanId());
        assertEquals("search_memory", span.getAttributes().get(RecordTracing.OPERATION));
        assertEquals("reme.memories", span.getAttributes().get(RecordTracing.STORE));
        assertEquals(3L, span.getAttributes().get(RecordTracing.RECORD_COUNT));

        spans.reset();
        assertEquals(
                List.of("m1"),
                tracing.memoryOperation("search_memory", "reme.memories", "acme", () -> List.of("m1"), List::size));
        assertTrue(spans.getFinishedSpanItems().isEmpty(), "outside a trace a search starts none");
    }

    @Test
    void theCurrentContextIsCarriedAsCheckedHeaders() {
        assertSame(TraceHeaders.NONE, RecordTracing.current(), "outside a trace: none");
        try (Scope _ =
                RecordTracing.parent(TraceHeaders.of(TRACEPARENT, "vendor=1")).makeCurrent()) {
            Headers current = RecordTracing.current();
            assertEquals(TRACEPARENT, TraceHeaders.traceparent(current));
            assertEquals("vendor=1", text(current, TraceHeaders.TRACESTATE));
        }
    }

    private SpanData only() {
        List<SpanData> finished = spans.getFinishedSpanItems();
        assertEquals(1, finished.size(), finished.toString());
        return finished.get(0);
    }

    private static Headers headers(String traceparent, String tracestate) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(TraceHeaders.TRACEPARENT, traceparent.getBytes(StandardCharsets.US_ASCII));
        if (tracestate != null) {
            headers.add(TraceHeaders.TRACESTATE, tracestate.getBytes(StandardCharsets.US_ASCII));
        }
        return headers;
    }

    private static String text(Headers headers, String name) {
        return headers.lastHeader(name) == null
                ? null
                : new String(headers.lastHeader(name).value(), StandardCharsets.US_ASCII);
    }
}
