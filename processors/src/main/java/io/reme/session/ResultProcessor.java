package io.reme.session;

import io.reme.dlq.DlqReason;
import io.reme.dlq.InputLimit;
import io.reme.json.Json;
import io.reme.llm.LlmResult;
import io.reme.llm.ResultSignature;
import io.reme.metrics.PipelineMetrics;
import io.reme.tokens.TokenCounter;
import io.reme.trace.RecordTracing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads worker results from {@code llm.results} (co-partitioned with {@code messages}, so the same
 * task owns the session) and applies them to the window; unreadable results, and results without the
 * workers' signature ({@link ResultSignature}), are dead-lettered.
 */
public final class ResultProcessor implements Processor<byte[], byte[], Object, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(ResultProcessor.class);

    private final SessionSettings settings;
    private final TokenCounter tokens;
    private final PipelineMetrics metrics;
    private final String tenantsStore;
    private final RecordTracing tracing;
    private SessionOutputs outputs;
    private SessionState state;
    private ProcessorContext<Object, Object> context;

    private ResultProcessor(
            SessionSettings settings,
            TokenCounter tokens,
            PipelineMetrics metrics,
            String tenantsStore,
            RecordTracing tracing) {
        this.tracing = tracing;
        this.settings = settings;
        this.tokens = tokens;
        this.metrics = metrics;
        this.tenantsStore = tenantsStore;
    }

    public static ProcessorSupplier<byte[], byte[], Object, Object> supplier(
            SessionSettings settings, TokenCounter tokens, PipelineMetrics metrics) {
        return supplier(settings, tokens, metrics, null, RecordTracing.OFF);
    }

    /**
     * As {@link #supplier(SessionSettings, TokenCounter, PipelineMetrics)}, with each tenant's session
     * settings laid over by its policy in the global store named {@code tenantsStore} (null: none), and each traced
     * record in a span of its own ({@code tracing}).
     */
    public static ProcessorSupplier<byte[], byte[], Object, Object> supplier(
            SessionSettings settings,
            TokenCounter tokens,
            PipelineMetrics metrics,
            String tenantsStore,
            RecordTracing tracing) {
        return () -> new ResultProcessor(settings, tokens, metrics, tenantsStore, tracing);
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        outputs = new SessionOutputs(
                context, metrics, new InputLimit(settings.input().maxMessageBytes()), tracing);
        state = SessionState.attach(context, settings, tokens, outputs, tenantsStore);
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (outputs.refusedAsTooLarge(record, LOG)) {
            return;
        }
        SessionKey key;
        LlmResult result;
        try {
            key = SessionKey.parse(record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8));
            result = record.value() == null ? null : Json.MAPPER.readValue(record.value(), LlmResult.class);
        } catch (IOException | IllegalArgumentException e) {
            outputs.deadLetter(record, DlqReason.INVALID_RESULT, e.getMessage());
            return;
        }
        if (result == null
                || !key.tenant().equals(result.tenant())
                || !key.session().equals(result.session())) {
            outputs.deadLetter(
                    record, DlqReason.INVALID_RESULT, "result is empty or its tenant/session does not match the key");
            return;
        }
        boolean signed =
                ResultSignature.valid(settings.requestSecret(), record.headers(), record.key(), record.value());
        CompactionResults.Verdict verdict = state.check(key, result, signed);
        if (verdict == CompactionResults.Verdict.EARLIER_INCARNATION) {
            outputs.deadLetter(
                    record,
                    DlqReason.EARLIER_INCARNATION,
                    "result of epoch " + result.epoch()
                            + " was issued before the session was erased and written again; not applied");
            return;
        }
        if (verdict == CompactionResults.Verdict.FORGED) {
            outputs.deadLetter(
                    record,
                    DlqReason.UNAUTHENTICATED,
                    signed
                            ? "requestId was not issued by this deployment for epoch " + result.epoch()
                            : "result not signed by this deployment's workers (header " + ResultSignature.HEADER + ")");
            return;
        }
        try {
            // What the result causes (the next compaction's request, a diary span's) continues the worker's trace.
            outputs.tracing(
                    record.headers(),
                    key.tenant(),
                    () -> state.apply(key, result, record.timestamp(), context.currentSystemTimeMs()));
        } catch (KafkaException e) {
            // Streams' own and the clients' failures are not the result's fault: Streams must see them.
            throw e;
        } catch (RuntimeException e) {
            LOG.error(
                    "result could not be applied, dead-lettered tenant={} session={} requestId={}",
                    key.tenant(),
                    key.session(),
                    result.requestId(),
                    e);
            outputs.deadLetter(record, DlqReason.PROCESSING_ERROR, e.toString());
        }
    }
}
