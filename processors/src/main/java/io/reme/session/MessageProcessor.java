package io.reme.session;

import io.reme.diary.EditSignature;
import io.reme.dlq.DlqReason;
import io.reme.dlq.InputLimit;
import io.reme.dlq.InvalidInputException;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureMarker;
import io.reme.erasure.ErasureReport;
import io.reme.erasure.ErasureStores;
import io.reme.message.Message;
import io.reme.message.MessageParser;
import io.reme.metrics.PipelineMetrics;
import io.reme.tokens.TokenCounter;
import io.reme.trace.RecordTracing;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads raw records from {@code messages}: invalid ones go to the dead-letter topic with their
 * reason, valid ones are appended to their session's window.
 */
public final class MessageProcessor implements Processor<byte[], byte[], Object, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(MessageProcessor.class);

    private final SessionSettings settings;
    private final TokenCounter tokens;
    private final PipelineMetrics metrics;
    private final String tenantsStore;
    private final RecordTracing tracing;
    private final MessageParser parser;
    private SessionOutputs outputs;
    private SessionState state;
    private ProcessorContext<Object, Object> context;

    private MessageProcessor(
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
        this.parser = new MessageParser(
                settings.input().maxMessageBytes(), settings.input().timeBounds());
    }

    /** A supplier creating a fresh processor per task; the stores are attached by the topology. */
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
        return () -> new MessageProcessor(settings, tokens, metrics, tenantsStore, tracing);
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        outputs = new SessionOutputs(
                context, metrics, new InputLimit(settings.input().maxMessageBytes()), tracing);
        state = SessionState.attach(context, settings, tokens, outputs, tenantsStore);
        this.context = context;
        // Idle and expired sessions are a matter of real time passing, not of records arriving.
        long interval =
                Math.max(1_000, Math.min(30_000, settings.lifetime().idleAfter().toMillis() / 2));
        context.schedule(Duration.ofMillis(interval), PunctuationType.WALL_CLOCK_TIME, state::sweep);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (outputs.refusedAsTooLarge(record, LOG)) {
            return;
        }
        if (Erasure.isErasure(record.headers())) {
            erase(record);
            return;
        }
        Message message;
        try {
            // Times are bounded against the processor's clock, the one idle detection and expiry run on:
            // the record timestamp is the producer's to set, so it cannot vouch for itself.
            message = parser.parse(
                    record.key(),
                    record.value(),
                    record.timestamp(),
                    context.currentSystemTimeMs(),
                    outputs.originId());
        } catch (InvalidInputException e) {
            LOG.debug("message rejected reason={} detail={}", e.reason(), e.getMessage());
            outputs.deadLetter(record, e.reason(), e.getMessage());
            return;
        }
        try {
            Message parsed = message;
            outputs.tracing(
                    record.headers(),
                    parsed.tenant(),
                    () -> state.append(
                            parsed,
                            record.timestamp(),
                            context.currentSystemTimeMs(),
                            context.recordMetadata().map(RecordMetadata::offset).orElse(-1L)));
        } catch (KafkaException e) {
            // Streams' own (task migrated, producer fenced, store and record-collector failures) and the
            // clients': not the record's fault, so Streams must see them; dead-lettering would lose a valid message.
            throw e;
        } catch (RuntimeException e) {
            LOG.error(
                    "message could not be processed, dead-lettered tenant={} session={} id={}",
                    message.tenant(),
                    message.session(),
                    message.id(),
                    e);
            outputs.deadLetter(record, DlqReason.PROCESSING_ERROR, e.toString());
        }
    }

    /**
     * An erasure request (one per partition, sent by the API): only with the deployment's signature,
     * since it deletes state; the report of what this partition removed is kept for the API to read.
     */
    private void erase(Record<byte[], byte[]> record) {
        if (!EditSignature.valid(settings.requestSecret(), record.headers(), record.key(), record.value())) {
            LOG.warn("unsigned erasure request refused origin={}", outputs.originId());
            outputs.deadLetter(record, DlqReason.UNAUTHENTICATED, "no valid " + EditSignature.HEADER + " header");
            return;
        }
        Erasure erasure;
        try {
            erasure = Erasure.fromJson(record.value());
        } catch (IOException | RuntimeException e) {
            outputs.deadLetter(record, DlqReason.INVALID_CONTENT, "unreadable erasure request: " + e.getMessage());
            return;
        }
        KeyValueStore<String, ErasureReport> reports = context.getStateStore(ErasureStores.SESSIONS);
        ErasureReport done = ErasureReport.replaying(reports, erasure);
        if (done != null) {
            LOG.warn(
                    "erasure request already applied refused tenant={} user={} erasureId={} applied={}",
                    erasure.tenant(),
                    erasure.user() == null ? Erasure.ALL_USERS : erasure.user(),
                    erasure.erasureId(),
                    done.erasureId());
            outputs.deadLetter(record, DlqReason.EARLIER_INCARNATION, ErasureReport.replayDetail(erasure));
            return;
        }
        long now = context.currentSystemTimeMs();
        SessionEraser.Erased erased = state.erase(erasure, now);
        // The partition the archived lines name as their origin, so the marker and the lines agree on it.
        int partition = outputs.partition();
        long offset = context.recordMetadata().map(RecordMetadata::offset).orElse(-1L);
        outputs.erasureMarker(ErasureMarker.of(erasure, partition, offset), settings.requestSecret(), now);
        reports.put(
                erasure.key(),
                ErasureReport.sessions(
                        erasure,
                        partition,
                        Instant.ofEpochMilli(now),
                        erased.sessions(),
                        erased.messages(),
                        erased.summaries(),
                        erased.toolOutputs()));
        LOG.info(
                "sessions erased tenant={} user={} erasureId={} partition={} sessions={} messages={}",
                erasure.tenant(),
                erasure.user() == null ? Erasure.ALL_USERS : erasure.user(),
                erasure.erasureId(),
                partition,
                erased.sessions(),
                erased.messages());
    }
}
