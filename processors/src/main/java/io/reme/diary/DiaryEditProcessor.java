package io.reme.diary;

import io.reme.dlq.DeadLetters;
import io.reme.dlq.DlqReason;
import io.reme.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single writer of each document: applies an edit only if its base version is the current one
 * and publishes the new version to {@code diary}; a stale edit is dropped, and its author, seeing a
 * newer version by someone else, re-reads and retries. Replaying the same edit is a no-op.
 */
public final class DiaryEditProcessor implements Processor<byte[], byte[], Object, Object> {
    public static final String SOURCE = "diary-edits-source";
    public static final String NAME = "diary-edit-processor";
    public static final String STORE = "diary-documents";
    public static final String SINK = "diary-sink";
    public static final String DLQ_SINK = "diary-dlq-sink";
    private static final Logger LOG = LoggerFactory.getLogger(DiaryEditProcessor.class);

    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, DiaryDocument> documents;

    public static ProcessorSupplier<byte[], byte[], Object, Object> supplier() {
        return DiaryEditProcessor::new;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.documents = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        DiaryEdit edit;
        try {
            edit = Json.MAPPER.readValue(record.value(), DiaryEdit.class);
        } catch (IOException | RuntimeException e) {
            deadLetter(record, "unreadable diary edit: " + e.getMessage());
            return;
        }
        String key = edit.key().key();
        if (record.key() == null || !key.equals(new String(record.key(), StandardCharsets.UTF_8))) {
            deadLetter(record, "key must be " + key);
            return;
        }
        DiaryDocument current = documents.get(key);
        long currentVersion = current == null ? 0 : current.version();
        if (current != null && current.editId().equals(edit.editId())) {
            return;
        }
        if (edit.baseVersion() != currentVersion) {
            LOG.info("diary edit conflict tenant={} user={} document={} base={} current={} author={}", edit.tenant(),
                    edit.user(), edit.name(), edit.baseVersion(), currentVersion, edit.author());
            return;
        }
        DiaryDocument next = new DiaryDocument(edit.tenant(), edit.user(), edit.name(), edit.content(),
                currentVersion + 1, edit.editId(), edit.author(), edit.at());
        documents.put(key, next);
        context.forward(new Record<>(key, next, record.timestamp()), SINK);
    }

    private void deadLetter(Record<byte[], byte[]> record, String detail) {
        context.forward(DeadLetters.of(context, record, DlqReason.INVALID_CONTENT, detail), DLQ_SINK);
    }
}
