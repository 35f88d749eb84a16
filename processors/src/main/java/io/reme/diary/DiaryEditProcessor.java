package io.reme.diary;

import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.dlq.InputLimit;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureReport;
import io.reme.erasure.ErasureStores;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.metrics.PipelineMetrics;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.search.SourceSpan;
import io.reme.trace.RecordTracing;
import io.reme.trace.TraceHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single writer of each document: applies an edit only if its base version is the current one
 * and publishes the new version to {@code diary}; a stale edit is dropped, and its author, seeing a
 * newer version by someone else, re-reads and retries. Replaying the same edit is a no-op. Each new
 * version's changed chunks go out for embedding and indexing; chunks it no longer has are deleted.
 * An edit without the deployment's {@link EditSignature} is dead-lettered ({@code UNAUTHENTICATED}).
 */
public final class DiaryEditProcessor implements Processor<byte[], byte[], Object, Object> {
    public static final String SOURCE = "diary-edits-source";
    public static final String NAME = "diary-edit-processor";
    public static final String STORE = "diary-documents";
    public static final String SINK = "diary-sink";
    public static final String DLQ_SINK = "diary-dlq-sink";
    /** Chunks of changed documents, to be embedded into {@code memories}. */
    public static final String CHUNKS_SINK = "diary-chunks-sink";

    private static final Logger LOG = LoggerFactory.getLogger(DiaryEditProcessor.class);

    private final DiaryChunker chunker = DiaryChunker.defaults();
    private final PipelineMetrics metrics;
    private final InputLimit limit;
    private final RequestSecret secret;
    private final RecordTracing tracing;
    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, DiaryDocument> documents;

    private DiaryEditProcessor(PipelineMetrics metrics, InputLimit limit, RequestSecret secret, RecordTracing tracing) {
        this.tracing = tracing;
        this.metrics = metrics;
        this.limit = limit;
        this.secret = secret;
    }

    /**
     * @param limit edits over it are dead-lettered before they are read (a document is stored and logged whole)
     * @param secret the deployment's secret, whose {@link EditSignature} every edit must carry
     * @param tracing an applied edit's span, whose trace its document and chunks carry on
     */
    public static ProcessorSupplier<byte[], byte[], Object, Object> supplier(
            PipelineMetrics metrics, InputLimit limit, RequestSecret secret, RecordTracing tracing) {
        return () -> new DiaryEditProcessor(metrics, limit, secret, tracing);
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.documents = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        String tooLarge = limit.violation(record.key(), record.value(), record.headers());
        if (tooLarge != null) {
            context.recordMetadata()
                    .ifPresent(m -> LOG.warn(
                            "diary edit over the input limit dead-lettered topic={} "
                                    + "partition={} offset={} detail={}",
                            m.topic(),
                            m.partition(),
                            m.offset(),
                            tooLarge));
            deadLetter(record, DlqReason.TOO_LARGE, tooLarge);
            return;
        }
        if (!EditSignature.valid(secret, record.headers(), record.key(), record.value())) {
            LOG.warn(
                    "unsigned diary edit refused offset={}",
                    context.recordMetadata()
                            .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
                            .orElse("?"));
            deadLetter(record, DlqReason.UNAUTHENTICATED, "no valid " + EditSignature.HEADER + " header");
            return;
        }
        if (Erasure.isErasure(record.headers())) {
            erase(record);
            return;
        }
        DiaryEdit edit;
        try {
            edit = Json.MAPPER.readValue(record.value(), DiaryEdit.class);
        } catch (IOException | RuntimeException e) {
            deadLetter(record, DlqReason.INVALID_CONTENT, "unreadable diary edit: " + e.getMessage());
            return;
        }
        String key = edit.key().key();
        if (record.key() == null || !key.equals(new String(record.key(), StandardCharsets.UTF_8))) {
            deadLetter(record, DlqReason.INVALID_CONTENT, "key must be " + key);
            return;
        }
        Instant erased =
                ErasureReport.lastErased(context.getStateStore(ErasureStores.DOCUMENTS), edit.tenant(), edit.user());
        if (erased != null && (edit.at() == null || !edit.at().isAfter(erased))) {
            // Signed, but made before its user's data was erased: applied now, it would bring that data back.
            LOG.warn(
                    "diary edit of erased data refused tenant={} user={} document={} editAt={} erasedAt={}",
                    edit.tenant(),
                    edit.user(),
                    edit.name(),
                    edit.at(),
                    erased);
            deadLetter(
                    record,
                    DlqReason.EARLIER_INCARNATION,
                    "edit made at " + edit.at() + ", before its user's data was erased at " + erased);
            return;
        }
        DiaryDocument current = documents.get(key);
        long currentVersion = current == null ? 0 : current.version();
        if (current != null && current.editId().equals(edit.editId())) {
            return;
        }
        if (edit.baseVersion() != currentVersion) {
            LOG.info(
                    "diary edit conflict tenant={} user={} document={} base={} current={} author={}",
                    edit.tenant(),
                    edit.user(),
                    edit.name(),
                    edit.baseVersion(),
                    currentVersion,
                    edit.author());
            return;
        }
        DiaryDocument next = new DiaryDocument(
                edit.tenant(),
                edit.user(),
                edit.name(),
                edit.content(),
                currentVersion + 1,
                edit.editId(),
                edit.author(),
                edit.at(),
                SourceSpan.merge(current == null ? List.of() : current.sources(), edit.sources()));
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("unknown");
        tracing.process(record.headers(), topic, edit.tenant(), trace -> {
            documents.put(key, next);
            context.forward(new Record<>(key, next, record.timestamp(), TraceHeaders.copyOf(trace)), SINK);
            forwardChunks(current, next, record.timestamp(), trace);
        });
    }

    /**
     * Sends the chunks that changed for indexing and deletes the ones the new version no longer has,
     * so search always reflects the latest version and unchanged chunks are not embedded again. A chunk
     * carries the document's sources as of the version that last changed its text.
     */
    private void forwardChunks(DiaryDocument previous, DiaryDocument next, long timestamp, Headers trace) {
        List<DiaryChunker.Chunk> before = previous == null ? List.of() : chunker.chunk(previous.content());
        List<DiaryChunker.Chunk> after = chunker.chunk(next.content());
        DocumentKey key = next.key();
        Instant day = DocumentKey.LONG_TERM.equals(key.name())
                ? next.updatedAt()
                : LocalDate.parse(key.name()).atStartOfDay(ZoneOffset.UTC).toInstant();
        for (DiaryChunker.Chunk chunk : after) {
            if (chunk.index() < before.size() && before.get(chunk.index()).equals(chunk)) {
                continue;
            }
            String id = chunkId(key, chunk.index());
            MemoryRecord memory = new MemoryRecord(
                    id,
                    new MemoryRecord.Owner(key.tenant(), key.user(), null),
                    MemoryType.DIARY_CHUNK,
                    chunk.text(),
                    new MemoryRecord.Times(next.updatedAt(), next.updatedAt(), day),
                    Map.of(
                            "path",
                            key.path(),
                            "startLine",
                            Integer.toString(chunk.startLine()),
                            "endLine",
                            Integer.toString(chunk.endLine()),
                            "version",
                            Long.toString(next.version())),
                    null,
                    MemoryRecord.Versions.FIRST,
                    null,
                    MemoryRecord.Vectors.NONE,
                    next.sources());
            context.forward(
                    new Record<>(new MemoryKey(key.tenant(), id).key(), memory, timestamp, TraceHeaders.copyOf(trace)),
                    CHUNKS_SINK);
        }
        for (int index = after.size(); index < before.size(); index++) {
            context.forward(
                    new Record<>(new MemoryKey(key.tenant(), chunkId(key, index)).key(), null, timestamp), CHUNKS_SINK);
        }
    }

    /**
     * An erasure request (signed, one per partition): deletes the user's (or the tenant's) documents
     * of this partition, tombstones them on {@code diary} (the file sink deletes the files) and their
     * chunks on the way to {@code memories}, and keeps a report for the API.
     */
    private void erase(Record<byte[], byte[]> record) {
        Erasure erasure;
        try {
            erasure = Erasure.fromJson(record.value());
        } catch (IOException | RuntimeException e) {
            deadLetter(record, DlqReason.INVALID_CONTENT, "unreadable erasure request: " + e.getMessage());
            return;
        }
        KeyValueStore<String, ErasureReport> reports = context.getStateStore(ErasureStores.DOCUMENTS);
        ErasureReport done = ErasureReport.replaying(reports, erasure);
        if (done != null) {
            LOG.warn(
                    "erasure request already applied refused tenant={} erasureId={} applied={}",
                    erasure.tenant(),
                    erasure.erasureId(),
                    done.erasureId());
            deadLetter(record, DlqReason.EARLIER_INCARNATION, ErasureReport.replayDetail(erasure));
            return;
        }
        List<DiaryDocument> doomed = new ArrayList<>();
        try (KeyValueIterator<String, DiaryDocument> it =
                documents.prefixScan(erasure.userPrefix(), new StringSerializer())) {
            it.forEachRemaining(entry -> doomed.add(entry.value));
        }
        for (DiaryDocument document : doomed) {
            DocumentKey key = document.key();
            documents.delete(key.key());
            context.forward(new Record<>(key.key(), null, record.timestamp()), SINK);
            int chunks = chunker.chunk(document.content()).size();
            for (int index = 0; index < chunks; index++) {
                context.forward(
                        new Record<>(new MemoryKey(key.tenant(), chunkId(key, index)).key(), null, record.timestamp()),
                        CHUNKS_SINK);
            }
        }
        long now = context.currentSystemTimeMs();
        int partition = context.recordMetadata().map(m -> m.partition()).orElse(-1);
        reports.put(
                erasure.key(), ErasureReport.documents(erasure, partition, Instant.ofEpochMilli(now), doomed.size()));
        LOG.info(
                "diary documents erased tenant={} user={} erasureId={} partition={} documents={}",
                erasure.tenant(),
                erasure.user() == null ? Erasure.ALL_USERS : erasure.user(),
                erasure.erasureId(),
                partition,
                doomed.size());
    }

    /** Stable per document and position; ':' cannot occur in IDs, so it cannot be confused. */
    public static String chunkId(DocumentKey key, int index) {
        return "diary:" + key.user() + ":" + key.name() + ":" + index;
    }

    private void deadLetter(Record<byte[], byte[]> record, DlqReason reason, String detail) {
        context.forward(DeadLetters.of(context, record, reason, detail, limit.maxBytes()), DLQ_SINK);
        metrics.deadLetter(reason);
    }
}
