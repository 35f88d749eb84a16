package io.reme.worker;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.reme.llm.LlmRequest;
import io.reme.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The workers' spans: one per request handled ({@code process <topic>}, a child of the trace the request record
 * carries), one per LLM task ({@link TracedLlmClient}) and one per memory write, named as OpenTelemetry's GenAI
 * memory conventions name them ({@code create_memory}, {@code update_memory}). Without an SDK installed every span
 * is a no-op.
 */
final class WorkerTracing {
    static final String SCOPE = "io.reme.worker";
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> STORE = AttributeKey.stringKey("gen_ai.memory.store.id");
    static final AttributeKey<String> RECORD_ID = AttributeKey.stringKey("gen_ai.memory.record.id");
    static final AttributeKey<Long> RECORD_COUNT = AttributeKey.longKey("gen_ai.memory.record.count");
    static final AttributeKey<String> TENANT = AttributeKey.stringKey("reme.tenant");
    static final AttributeKey<String> KIND = AttributeKey.stringKey("reme.request.kind");
    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("reme.request.id");

    private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();

    private static final TextMapGetter<Headers> HEADERS = new TextMapGetter<>() {
        @Override
        public String get(Headers carrier, String key) {
            Header header = carrier == null ? null : carrier.lastHeader(key);
            return header == null || header.value() == null
                    ? null
                    : new String(header.value(), StandardCharsets.US_ASCII);
        }
    };

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
                .setParent(W3C.extract(Context.root(), trace, HEADERS))
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

    /** The current trace context as record headers, for what the worker writes. */
    static Headers current() {
        String[] parent = new String[2];
        W3C.inject(Context.current(), parent, (carrier, key, value) -> {
            if (TraceHeaders.TRACEPARENT.equals(key)) {
                carrier[0] = value;
            } else if (TraceHeaders.TRACESTATE.equals(key)) {
                carrier[1] = value;
            }
        });
        return TraceHeaders.of(parent[0], parent[1]);
    }
}
