package io.reme.worker;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.reme.llm.LlmRequest;
import io.reme.trace.RecordTracing;
import org.apache.kafka.common.header.Headers;

/**
 * The workers' spans: one per request handled ({@code process <topic>}, a child of the trace the request record
 * carries), one per LLM task ({@link TracedLlmClient}) and one per memory write, named as OpenTelemetry's GenAI
 * memory conventions name them ({@code create_memory}, {@code update_memory}). Without an SDK installed every span
 * is a no-op.
 */
final class WorkerTracing {
    static final String SCOPE = "io.reme.worker";
    static final AttributeKey<String> OPERATION = RecordTracing.OPERATION;
    static final AttributeKey<String> STORE = RecordTracing.STORE;
    static final AttributeKey<String> RECORD_ID = AttributeKey.stringKey("gen_ai.memory.record.id");
    static final AttributeKey<Long> RECORD_COUNT = RecordTracing.RECORD_COUNT;
    static final AttributeKey<String> TENANT = RecordTracing.TENANT;
    static final AttributeKey<String> KIND = AttributeKey.stringKey("reme.request.kind");
    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("reme.request.id");

    private final Tracer tracer;

    WorkerTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(SCOPE);
    }

    Tracer tracer() {
        return tracer;
    }

    /** The span of handling {@code request}, read from {@code topic} with the trace context {@code trace}. */
    Span request(Headers trace, String topic, long offset, LlmRequest request) {
        return tracer.spanBuilder("process " + topic)
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(RecordTracing.parent(trace))
                .setAttribute("messaging.system", "kafka")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.name", topic)
                .setAttribute("messaging.kafka.offset", offset)
                .setAttribute(TENANT, request.dialog().tenant())
                .setAttribute(KIND, request.kind().name())
                .setAttribute(REQUEST_ID, request.requestId())
                .startSpan();
    }

    /** A write of {@code count} memories to {@code store}, as the GenAI memory conventions name it. */
    Span memoryWrite(String operation, String store, String tenant, int count, String recordId) {
        var builder = tracer.spanBuilder(operation + " " + store)
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(OPERATION, operation)
                .setAttribute(STORE, store)
                .setAttribute(RECORD_COUNT, (long) count)
                .setAttribute(TENANT, tenant);
        if (recordId != null) {
            builder.setAttribute(RECORD_ID, recordId);
        }
        return builder.startSpan();
    }
}
