package io.reme.session;

import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.llm.LlmRequest;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Typed forwarding from the session processors to their sinks; the only place that names children. */
final class SessionOutputs {
    private final ProcessorContext<Object, Object> context;

    SessionOutputs(ProcessorContext<Object, Object> context) {
        this.context = context;
    }

    void request(SessionKey key, LlmRequest request, long timestamp) {
        context.forward(new Record<>(key.key(), request, timestamp), SessionNodes.REQUESTS_SINK);
    }

    void archive(SessionKey key, ArchivedMessage message, long timestamp) {
        context.forward(new Record<>(key.key(), message, timestamp), SessionNodes.DIALOG_SINK);
    }

    void toolResult(String tenant, String toolResultId, String fullText, long timestamp) {
        context.forward(new Record<>(tenant + "/" + toolResultId, fullText, timestamp), SessionNodes.TOOL_RESULTS_SINK);
    }

    void deadLetter(Record<byte[], byte[]> original, DlqReason reason, String detail) {
        context.forward(DeadLetters.of(context, original, reason, detail), SessionNodes.DLQ_SINK);
    }

    /** A fallback message ID that is stable across replays of the same input record. */
    String originId() {
        return context.recordMetadata().map(m -> m.topic() + "-" + m.partition() + "-" + m.offset()).orElse("unknown");
    }
}
