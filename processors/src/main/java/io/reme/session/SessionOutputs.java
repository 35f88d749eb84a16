package io.reme.session;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.dlq.InputLimit;
import io.reme.erasure.ErasureMarker;
import io.reme.json.Json;
import io.reme.llm.LlmRequest;
import io.reme.llm.RequestSecret;
import io.reme.metrics.PipelineMetrics;
import io.reme.trace.RecordTracing;
import io.reme.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;

/**
 * What leaves the session processors: typed forwarding to their sinks (the only place that names
 * children) and the events reported to the metrics.
 */
final class SessionOutputs {
    private final ProcessorContext<Object, Object> context;
    private final PipelineMetrics metrics;
    private final InputLimit limit;
    private final RecordTracing tracing;
    /** The trace context of the record being processed, carried on what it causes; none in a punctuation. */
    private Headers trace = TraceHeaders.NONE;

    SessionOutputs(
            ProcessorContext<Object, Object> context,
            PipelineMetrics metrics,
            InputLimit limit,
            RecordTracing tracing) {
        this.context = context;
        this.metrics = metrics;
        this.limit = limit;
        this.tracing = tracing;
    }

    /**
     * Runs {@code work} for {@code tenant}'s record whose headers are {@code input}, in the span of this step when the
     * record is traced ({@link RecordTracing#process}): what it outputs carries that trace on, what a punctuation
     * outputs none.
     */
    void tracing(Headers input, String tenant, Runnable work) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("unknown");
        tracing.process(input, topic, tenant, carried -> {
            trace = carried;
            try {
                work.run();
            } finally {
                trace = TraceHeaders.NONE;
            }
        });
    }

    void request(SessionKey key, LlmRequest request, long timestamp) {
        context.forward(
                new Record<>(key.key(), request, timestamp, TraceHeaders.copyOf(trace)), SessionNodes.REQUESTS_SINK);
    }

    void archive(SessionKey key, ArchivedMessage message, long timestamp) {
        context.forward(
                new Record<>(key.key(), message, timestamp, TraceHeaders.copyOf(trace)), SessionNodes.DIALOG_SINK);
    }

    void toolResult(String tenant, String toolResultId, String fullText, long timestamp) {
        context.forward(
                new Record<>(tenant + "/" + toolResultId, fullText, timestamp, TraceHeaders.copyOf(trace)),
                SessionNodes.TOOL_RESULTS_SINK);
    }

    /** Deletes a stored full tool output: a tombstone on the compacted topic, which the file sink applies too. */
    void toolResultTombstone(String tenant, String toolResultId, long timestamp) {
        context.forward(new Record<>(tenant + "/" + toolResultId, null, timestamp), SessionNodes.TOOL_RESULTS_SINK);
    }

    /** The partition of {@code messages} this task keeps the sessions of. */
    int partition() {
        return context.taskId().partition();
    }

    /**
     * Tells the dialog file sink to delete what it wrote for the sessions the erasure removed from this
     * task's partition: a record without a value, keyed by the erasure's key, its {@link ErasureMarker}
     * in signed headers, that the dialog sink's partitioner sends to every partition, after everything
     * this task archived for them.
     */
    void erasureMarker(ErasureMarker marker, RequestSecret secret, long timestamp) {
        context.forward(
                new Record<Object, Object>(marker.key(), null, timestamp, marker.headers(secret)),
                SessionNodes.DIALOG_SINK);
    }

    void deadLetter(Record<byte[], byte[]> original, DlqReason reason, String detail) {
        context.forward(DeadLetters.of(context, original, reason, detail, limit.maxBytes()), SessionNodes.DLQ_SINK);
        metrics.deadLetter(reason);
    }

    /**
     * Dead-letters an LLM request the session gives up on, as the bytes a worker reads from
     * {@code llm.requests}, so an operator can send it again as it is ({@code replay-dlq}).
     */
    void deadLetterRequest(SessionKey key, LlmRequest request, String detail, long timestamp) {
        byte[] value = Json.bytes(request);
        context.forward(
                new Record<Object, Object>(
                        key.key().getBytes(StandardCharsets.UTF_8),
                        value,
                        timestamp,
                        DeadLetterHeaders.of(null, DlqReason.LLM_FAILED, detail, null, -1, -1, timestamp)),
                SessionNodes.DLQ_SINK);
        metrics.deadLetter(DlqReason.LLM_FAILED);
    }

    /**
     * Dead-letters the record being processed if it is over the input limit, before any of it is parsed
     * or stored; returns whether it did.
     */
    boolean refusedAsTooLarge(Record<byte[], byte[]> record, Logger log) {
        String tooLarge = limit.violation(record.key(), record.value(), record.headers());
        if (tooLarge == null) {
            return false;
        }
        log.warn("record over the input limit dead-lettered origin={} detail={}", originId(), tooLarge);
        deadLetter(record, DlqReason.TOO_LARGE, tooLarge);
        return true;
    }

    void messageIn(String tenant, int tokens) {
        metrics.messageIn(tenant, tokens);
    }

    void compaction(String tenant, PipelineMetrics.Compaction event) {
        metrics.compaction(tenant, event);
    }

    /** A fallback message ID that is stable across replays of the same input record. */
    String originId() {
        return context.recordMetadata()
                .map(m -> m.topic() + "-" + m.partition() + "-" + m.offset())
                .orElse("unknown");
    }
}
