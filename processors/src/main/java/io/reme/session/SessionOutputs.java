package io.reme.session;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.llm.LlmRequest;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

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
        RecordMetadata origin = context.recordMetadata().orElse(null);
        Headers headers = DeadLetterHeaders.of(original.headers(), reason, detail,
                origin == null ? null : origin.topic(), origin == null ? -1 : origin.partition(),
                origin == null ? -1 : origin.offset(), original.timestamp());
        context.forward(new Record<Object, Object>(original.key(), original.value(), original.timestamp(), headers),
                SessionNodes.DLQ_SINK);
    }

    /** A fallback message ID that is stable across replays of the same input record. */
    String originId() {
        return context.recordMetadata().map(m -> m.topic() + "-" + m.partition() + "-" + m.offset()).orElse("unknown");
    }
}
