package io.reme.sink;

import com.fasterxml.jackson.core.JacksonException;
import io.reme.diary.DiaryDocument;
import io.reme.diary.DocumentKey;
import io.reme.json.Json;
import io.reme.workspace.DocumentFiles;
import io.reme.workspace.RefusedPathException;
import java.io.IOException;
import java.util.Collection;
import org.apache.kafka.connect.sink.SinkRecord;

/** Writes {@link DiaryDocument}s through {@link DocumentFiles}: newest version only, hand edits kept. */
public final class DiarySinkTask extends FileSinkTask {
    private DocumentFiles files;

    @Override
    void configure(FileSinkConfig config) {
        files = new DocumentFiles(workspace);
    }

    @Override
    void write(Collection<SinkRecord> records) throws IOException {
        for (SinkRecord record : records) {
            if (record.value() == null) {
                // A tombstone is an erasure: the document's file and what the sink kept about it go.
                delete(record);
                continue;
            }
            DiaryDocument document;
            try {
                document = parse(record);
            } catch (JacksonException | IllegalArgumentException e) {
                reject(record, "unreadable diary document: " + e.getMessage());
                continue;
            }
            try {
                files.apply(document);
            } catch (RefusedPathException e) {
                reject(record, e.getMessage());
            }
        }
    }

    private void delete(SinkRecord record) throws IOException {
        try {
            String[] key = keyParts(record, 3, "tenant/user/name");
            files.delete(new DocumentKey(key[0], key[1], key[2]));
        } catch (RefusedPathException | IllegalArgumentException e) {
            reject(record, "diary tombstone not applied: " + e.getMessage());
        }
    }

    private static DiaryDocument parse(SinkRecord record) throws JacksonException {
        String key = String.join("/", keyParts(record, 3, "tenant/user/name"));
        DiaryDocument document = Json.MAPPER.readValue(text(record.value()), DiaryDocument.class);
        if (!document.key().key().equals(key)) {
            throw new IllegalArgumentException(
                    "key " + key + " does not name document " + document.key().key());
        }
        return document;
    }

    @Override
    public void stop() {
        super.stop();
        files = null;
    }
}
