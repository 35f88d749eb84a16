package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.provider.DiaryTask;
import io.reme.provider.DocumentEditor;
import io.reme.provider.LlmClient;
import io.reme.provider.LlmException;
import io.reme.provider.SummaryTask;
import io.reme.trace.RecordTracing;
import io.reme.trace.TraceHeaders;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkerTracingTest {
    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();
    private final WorkerTracing tracing = new WorkerTracing(sdk);

    @AfterEach
    void close() {
        sdk.close();
    }

    private static LlmRequest request() {
        return LlmRequest.of(
                "r-1",
                1,
                LlmKind.COMPACT,
                new LlmRequest.Dialog("acme", "s1", "u1", 0, 0, 0, List.of(), "en"),
                LlmRequest.Compaction.NONE,
                Instant.parse("2026-12-07T10:00:00Z"));
    }

    private static final class Client implements LlmClient {
        private final boolean fail;

        Client(boolean fail) {
            this.fail = fail;
        }

        @Override
        public String id() {
            return "openai:gpt-4o-mini";
        }

        @Override
        public String summarize(SummaryTask task) throws LlmException {
            if (fail) {
                throw new LlmException("provider said 500", true, null);
            }
            // The call sees the span it is in, as an instrumented HTTP client would.
            return Span.current().getSpanContext().getSpanId();
        }

        @Override
        public String updateDiary(DiaryTask task, DocumentEditor editor) {
            return "[SILENT]";
        }
    }

    @Test
    void aRequestsSpanContinuesTheTraceItsRecordCarriesAndItsLlmCallIsAChildNamedAsGenAiNamesIt() throws Exception {
        Span span = tracing.request(TraceHeaders.of(PARENT, null), "reme.llm.requests", 42, request());
        String inner;
        String written;
        try (Scope _ = span.makeCurrent()) {
            inner = new TracedLlmClient(new Client(false), tracing.tracer()).summarize(null);
            written = TraceHeaders.traceparent(RecordTracing.current());
        } finally {
            span.end();
        }
        List<SpanData> ended = spans.getFinishedSpanItems();
        assertEquals(2, ended.size());
        SpanData chat = ended.get(0);
        SpanData process = ended.get(1);
        assertEquals("process reme.llm.requests", process.getName());
        assertEquals(SpanKind.CONSUMER, process.getKind());
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", process.getTraceId(), "the producer's trace");
        assertEquals("00f067aa0ba902b7", process.getParentSpanId());
        assertEquals("acme", process.getAttributes().get(AttributeKey.stringKey("reme.tenant")));
        assertEquals("COMPACT", process.getAttributes().get(AttributeKey.stringKey("reme.request.kind")));
        assertEquals(42L, process.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset")));

        assertEquals("chat gpt-4o-mini", chat.getName());
        assertEquals(SpanKind.CLIENT, chat.getKind());
        assertEquals(process.getSpanId(), chat.getParentSpanId());
        assertEquals(process.getTraceId(), chat.getTraceId());
        assertEquals("chat", chat.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")));
        assertEquals("openai", chat.getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name")));
        assertEquals("gpt-4o-mini", chat.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model")));
        assertEquals(chat.getSpanId(), inner, "the provider's call runs in the chat span");
        assertEquals(
                "00-" + process.getTraceId() + "-" + process.getSpanId() + "-01",
                written,
                "what the worker writes continues its span");
    }

    @Test
    void aFailedCallIsAnErrorSpanAndTheFailureReachesTheCallerUnchanged() {
        TracedLlmClient client = new TracedLlmClient(new Client(true), tracing.tracer());
        LlmException thrown = assertThrows(LlmException.class, () -> client.summarize(null));
        assertEquals("provider said 500", thrown.getMessage());
        SpanData chat = spans.getFinishedSpanItems().get(0);
        assertEquals(StatusCode.ERROR, chat.getStatus().getStatusCode());
        assertEquals(LlmException.class.getName(), chat.getAttributes().get(AttributeKey.stringKey("error.type")));
    }

    @Test
    void aRecordWithoutTraceContextStartsATraceOfItsOwnAndMemoryWritesAreNamedByTheMemoryConventions() {
        Span span = tracing.request(TraceHeaders.NONE, "reme.llm.requests", 7, request());
        try (Scope _ = span.makeCurrent()) {
            tracing.memoryWrite("create_memory", "reme.memories", "acme", 1, "m-1")
                    .end();
        } finally {
            span.end();
        }
        SpanData write = spans.getFinishedSpanItems().get(0);
        SpanData process = spans.getFinishedSpanItems().get(1);
        assertEquals(false, process.getParentSpanContext().isValid(), "a root span");
        assertEquals("create_memory reme.memories", write.getName());
        assertEquals(process.getSpanId(), write.getParentSpanId());
        assertEquals("create_memory", write.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")));
        assertEquals("reme.memories", write.getAttributes().get(AttributeKey.stringKey("gen_ai.memory.store.id")));
        assertEquals("m-1", write.getAttributes().get(AttributeKey.stringKey("gen_ai.memory.record.id")));
        assertEquals(1L, write.getAttributes().get(AttributeKey.longKey("gen_ai.memory.record.count")));
    }
}
