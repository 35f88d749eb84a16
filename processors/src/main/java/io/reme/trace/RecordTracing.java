package io.reme.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The spans of the pipeline's own steps: a record processed ({@code process <topic>}, a child of the trace the
 * record carries) and a memory operation ({@code search_memory}, ... as OpenTelemetry's GenAI memory conventions name
 * them, a child of the trace current on the calling thread). Only what is already traced is: a record or request
 * without a trace context starts no trace, so a platform's untraced traffic costs no spans. Off ({@link #OFF}, or an
 * {@link OpenTelemetry} without an SDK) nothing is recorded and a record's trace context is carried on as it came.
 */
public final class RecordTracing {
    /** The instrumentation scope of the pipeline's spans. */
    public static final String SCOPE = "io.reme.streams";

    public static final AttributeKey<String> TENANT = AttributeKey.stringKey("reme.tenant");
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    public static final AttributeKey<String> STORE = AttributeKey.stringKey("gen_ai.memory.store.id");
    public static final AttributeKey<Long> RECORD_COUNT = AttributeKey.longKey("gen_ai.memory.record.count");

    /** Nothing recorded: records carry their trace context on unchanged. */
    public static final RecordTracing OFF = new RecordTracing(OpenTelemetry.noop());

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
    private final boolean on;

    public RecordTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(SCOPE);
        // The API's no-op (no SDK installed) does not record, so the record's own context is carried as it came.
        this.on = !openTelemetry.equals(OpenTelemetry.noop());
    }

    public Tracer tracer() {
        return tracer;
    }

    /**
     * Runs {@code work} for a record read from {@code topic} with headers {@code input}, handing it the trace context
     * what the record causes carries: the span of this step when the record is traced and tracing is on, the
     * record's own (checked, {@link TraceHeaders#of(Headers)}) when off, {@link TraceHeaders#NONE} when it has none.
     * A failure of {@code work} marks the span and is thrown on unchanged.
     */
    public void process(Headers input, String topic, String tenant, Consumer<Headers> work) {
        Headers carried = TraceHeaders.of(input);
        if (!on || carried.lastHeader(TraceHeaders.TRACEPARENT) == null) {
            work.accept(carried);
            return;
        }
        Span span = tracer.spanBuilder("process " + topic)
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent(carried))
                .setAttribute("messaging.system", "kafka")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.name", topic)
                .setAttribute(TENANT, tenant)
                .startSpan();
        within(span, () -> {
            work.accept(current());
            return null;
        });
    }

    /**
     * Runs the memory operation {@code operation} (a GenAI memory convention's name: {@code search_memory},
     * {@code delete_memory}, ...) on {@code store} for {@code tenant} in a span of its own when the calling thread is
     * in a trace; {@code count} tells how many records it touched.
     */
    public <T> T memoryOperation(
            String operation, String store, String tenant, Supplier<T> work, ToIntFunction<T> count) {
        if (!on || !Span.current().getSpanContext().isValid()) {
            return work.get();
        }
        Span span = tracer.spanBuilder(operation + " " + store)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(OPERATION, operation)
                .setAttribute(STORE, store)
                .setAttribute(TENANT, tenant)
                .startSpan();
        return within(span, () -> {
            T result = work.get();
            span.setAttribute(RECORD_COUNT, (long) count.applyAsInt(result));
            return result;
        });
    }

    /** Runs {@code work} with {@code span} current and ends it; a failure marks the span and is thrown on. */
    private static <T> T within(Span span, Supplier<T> work) {
        try (Scope _ = span.makeCurrent()) {
            return work.get();
        } catch (RuntimeException | Error e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR);
            throw e;
        } finally {
            span.end();
        }
    }

    /**
     * The trace context the checked headers {@code trace} carry (as {@link TraceHeaders#of} gives them), under the
     * root context; made current, what runs on the thread joins it.
     */
    public static Context parent(Headers trace) {
        return W3C.extract(Context.root(), trace, HEADERS);
    }

    /** The trace context current on this thread as record headers ({@link TraceHeaders#NONE} outside a trace). */
    public static Headers current() {
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
