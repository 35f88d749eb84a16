package io.reme.sink;

import com.fasterxml.jackson.core.JacksonException;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureMarker;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.message.SafeId;
import io.reme.session.ArchivedMessage;
import io.reme.workspace.AtomicFiles;
import io.reme.workspace.RefusedPathException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends archived messages to their day's JSONL file. A line is the {@link ArchivedMessage} as
 * compact JSON (tenant, session, user, date, seq, summaryRequestId, message). A message already in
 * the file (same session and sequence number) is not written again: a redelivery after a crash,
 * whether or not the crash came before the offsets were committed, leaves the file as it was.
 *
 * <p>A new file is created atomically; later batches are appended and forced to disk, so a batch
 * costs what it adds, not the size of the day's file. The messages a file holds are remembered with
 * the size it had after the last write; a file whose size changed since (a hand edit, another
 * writer) is read again. A crash or a full disk in the middle of an append can leave a cut last line,
 * which a strict JSONL reader fails on: the next append cuts it off (the message it began is
 * redelivered and written in full), unless it reads as a message, when only its newline was missing,
 * or does not start as one (a hand-written line), which is kept and ended.
 */
public final class DialogSinkTask extends FileSinkTask {
    private static final Logger LOG = LoggerFactory.getLogger(DialogSinkTask.class);
    private static final int CACHED_FILES = 256;

    /** The messages in a file, by {@code session#seq}, the file size they were read at and whether it ends a line. */
    private record Contents(long size, Set<String> messages, boolean endsLine) {}

    private RequestSecret secret;

    private final Map<Path, Contents> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Path, Contents> eldest) {
            return size() > CACHED_FILES;
        }
    };

    static ConfigDef settings() {
        return FileSinkConfig.definition()
                .define(
                        FileSinkConfig.REQUEST_SECRET,
                        ConfigDef.Type.PASSWORD,
                        ConfigDef.NO_DEFAULT_VALUE,
                        (name, value) -> {
                            try {
                                RequestSecret.of(((Password) value).value());
                            } catch (IllegalArgumentException | NullPointerException e) {
                                throw new ConfigException(name, "[hidden]", e.getMessage());
                            }
                        },
                        ConfigDef.Importance.HIGH,
                        "The deployment's request secret (reme.request.secret): an erasure marker deletes files only"
                                + " with its signature.");
    }

    @Override
    ConfigDef definition() {
        return settings();
    }

    @Override
    void configure(FileSinkConfig config) {
        secret = RequestSecret.of(
                config.getPassword(FileSinkConfig.REQUEST_SECRET).value());
    }

    /**
     * Writes the batch in order around erasure markers: what came before a marker is written first,
     * then the marker deletes the erased user's (or tenant's) folder, so nothing archived before the
     * erasure survives it.
     */
    @Override
    void write(Collection<SinkRecord> records) throws IOException {
        List<SinkRecord> messages = new ArrayList<>();
        for (SinkRecord record : records) {
            if (record.headers().lastWithName(Erasure.HEADER) == null) {
                messages.add(record);
                continue;
            }
            writeMessages(messages);
            messages.clear();
            erase(record);
        }
        writeMessages(messages);
    }

    /**
     * A marker keyed {@code tenant/user} or {@code tenant/*}, if the deployment signed it: deletes the lines
     * of the sessions its erasure removed from its partition, and the other files of the erased folder
     * written before the erasure ({@link ErasureMarker}). One without a valid signature is skipped, not
     * dead-lettered: it names no content worth keeping, and failing the task on it would let any writer
     * stop the sink.
     */
    private void erase(SinkRecord record) throws IOException {
        String key = record.key() == null ? null : text(record.key());
        ErasureMarker marker = ErasureMarker.verified(secret, key, name -> header(record, name));
        if (marker == null) {
            String erasureId = header(record, Erasure.HEADER);
            LOG.warn(
                    "unsigned erasure marker ignored topic={} partition={} offset={} erasure={}",
                    record.topic(),
                    record.kafkaPartition(),
                    record.kafkaOffset(),
                    erasureId != null && SafeId.isSafe(erasureId) ? erasureId : "(invalid)");
            return;
        }
        try {
            cache.clear();
            int lines = 0;
            for (Path file : workspace.dialogFiles(marker.tenant(), marker.erasedUser())) {
                lines += eraseLines(file, marker);
            }
            int files = workspace.eraseChangedBy(
                    marker.tenant(), marker.erasedUser(), marker.requestedAt(), workspace::isDialogFile);
            // Each session partition sends its marker to every partition: most find nothing left of theirs.
            if (lines > 0 || files > 0) {
                LOG.info(
                        "workspace erased tenant={} user={} erasure={} sessionPartition={} lines={} files={}",
                        marker.tenant(),
                        marker.user(),
                        marker.erasureId(),
                        marker.partition(),
                        lines,
                        files);
            } else {
                LOG.debug(
                        "workspace erasure found nothing left tenant={} user={} erasure={} sessionPartition={}",
                        marker.tenant(),
                        marker.user(),
                        marker.erasureId(),
                        marker.partition());
            }
        } catch (RefusedPathException | IllegalArgumentException e) {
            reject(record, "erasure not applied: " + e.getMessage());
        }
    }

    /**
     * Removes the lines of {@code file} the marker's erasure covers, and lines that are not archived
     * messages (they are in the erased user's archive too); the file goes when no line is left.
     */
    private int eraseLines(Path file, ErasureMarker marker) throws IOException {
        byte[] bytes = AtomicFiles.readIfExists(workspace, file).orElse(null);
        if (bytes == null) {
            return 0;
        }
        StringBuilder kept = new StringBuilder(bytes.length);
        int erased = 0;
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (kept(line, marker)) {
                kept.append(line).append('\n');
            } else {
                erased++;
            }
        }
        if (erased == 0) {
            return 0;
        }
        if (kept.isEmpty()) {
            AtomicFiles.deleteIfExists(workspace, file);
        } else {
            AtomicFiles.write(workspace, file, kept.toString().getBytes(StandardCharsets.UTF_8));
        }
        return erased;
    }

    private static boolean kept(String line, ErasureMarker marker) {
        ArchivedMessage message;
        try {
            message = Json.MAPPER.readValue(line, ArchivedMessage.class);
        } catch (JacksonException e) {
            return false;
        }
        ArchivedMessage.Origin origin = message.origin();
        // A line without its origin was archived before origins were written, so before any marker that names one.
        return origin != null && !marker.erased(origin.partition(), origin.incarnation());
    }

    private static String header(SinkRecord record, String name) {
        Header header = record.headers().lastWithName(name);
        if (header == null || header.value() == null) {
            return null;
        }
        return header.value() instanceof byte[] bytes
                ? new String(bytes, StandardCharsets.UTF_8)
                : header.value().toString();
    }

    private void writeMessages(Collection<SinkRecord> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        Map<Path, List<ArchivedMessage>> byFile = new LinkedHashMap<>();
        Map<Path, List<SinkRecord>> recordsByFile = new LinkedHashMap<>();
        for (SinkRecord record : records) {
            try {
                ArchivedMessage message = parse(record);
                Path file = workspace.dialogFile(message.tenant(), message.user(), message.date());
                byFile.computeIfAbsent(file, f -> new ArrayList<>()).add(message);
                recordsByFile.computeIfAbsent(file, f -> new ArrayList<>()).add(record);
            } catch (JacksonException | IllegalArgumentException e) {
                reject(record, "unwritable archived message: " + e.getMessage());
            }
        }
        for (Map.Entry<Path, List<ArchivedMessage>> entry : byFile.entrySet()) {
            try {
                append(entry.getKey(), entry.getValue());
            } catch (RefusedPathException e) {
                // A link planted on the way to the file: the messages go to the dead letter queue, not outside.
                cache.remove(entry.getKey());
                for (SinkRecord record : recordsByFile.get(entry.getKey())) {
                    reject(record, e.getMessage());
                }
            }
        }
    }

    private void append(Path file, List<ArchivedMessage> messages) throws IOException {
        long size = sizeIfExists(file);
        Contents contents = cache.get(file);
        byte[] existing = new byte[0];
        if (contents == null || contents.size() != size) {
            existing = size < 0
                    ? new byte[0]
                    : AtomicFiles.readIfExists(workspace, file).orElse(new byte[0]);
            size = size < 0 ? -1 : existing.length;
            contents = new Contents(
                    size, messagesIn(existing), existing.length == 0 || existing[existing.length - 1] == '\n');
        }
        Set<String> present = new HashSet<>(contents.messages());
        ByteArrayOutputStream lines = new ByteArrayOutputStream(1024 * messages.size());
        if (!contents.endsLine()) {
            // A cached file always ends a line: this one was just read, so its bytes are at hand.
            int lineStart = lastLineStart(existing);
            // Only what this sink writes is cut off: a line of its JSON cut short. A hand-written last line
            // without its newline (anything not starting as a message does) is kept, and ended.
            if (existing[lineStart] != '{' || readsAsMessage(existing, lineStart)) {
                lines.write('\n');
            } else {
                AtomicFiles.truncateForced(workspace, file, lineStart);
                LOG.warn(
                        "cut last line removed file={} bytes={}",
                        workspace.root().relativize(file),
                        existing.length - lineStart);
                size = lineStart;
            }
        }
        int before = lines.size();
        for (ArchivedMessage message : messages) {
            if (present.add(id(message))) {
                lines.writeBytes(Json.MAPPER.writeValueAsBytes(message));
                lines.write('\n');
            }
        }
        if (lines.size() == before) {
            return;
        }
        if (size < 0) {
            AtomicFiles.write(workspace, file, lines.toByteArray());
            size = 0;
        } else {
            AtomicFiles.appendForced(workspace, file, lines.toByteArray());
        }
        cache.put(file, new Contents(size + lines.size(), present, true));
    }

    private long sizeIfExists(Path file) throws IOException {
        return AtomicFiles.attributesIfExists(workspace, file)
                .map(BasicFileAttributes::size)
                .orElse(-1L);
    }

    private static ArchivedMessage parse(SinkRecord record) throws JacksonException {
        String[] key = keyParts(record, 2, "tenant/session");
        if (record.value() == null) {
            throw new IllegalArgumentException("the dialog archive has no tombstones");
        }
        ArchivedMessage message = Json.MAPPER.readValue(text(record.value()), ArchivedMessage.class);
        if (!key[0].equals(message.tenant()) || !key[1].equals(message.session())) {
            throw new IllegalArgumentException("key " + String.join("/", key) + " does not match the message's "
                    + message.tenant() + "/" + message.session());
        }
        if (!message.tenant().equals(message.message().tenant())
                || !message.user().equals(message.message().user())) {
            throw new IllegalArgumentException("archived message and its message disagree on tenant or user");
        }
        return message;
    }

    /** What identifies a message in a file: it is unique per tenant and user. */
    private static String id(ArchivedMessage message) {
        return message.session() + "#" + message.seq();
    }

    /** The messages a file already holds; a line that is not an archived message is left alone. */
    private static int lastLineStart(byte[] file) {
        for (int i = file.length - 1; i >= 0; i--) {
            if (file[i] == '\n') {
                return i + 1;
            }
        }
        return 0;
    }

    private static boolean readsAsMessage(byte[] file, int from) {
        try {
            Json.MAPPER.readValue(
                    new String(file, from, file.length - from, StandardCharsets.UTF_8), ArchivedMessage.class);
            return true;
        } catch (JacksonException e) {
            return false;
        }
    }

    private static Set<String> messagesIn(byte[] file) {
        Set<String> ids = new HashSet<>();
        for (String line : new String(file, StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                try {
                    ids.add(id(Json.MAPPER.readValue(line, ArchivedMessage.class)));
                } catch (JacksonException e) {
                    // A hand-edited or foreign line: kept as it is, and it identifies nothing.
                }
            }
        }
        return ids;
    }

    @Override
    public void stop() {
        super.stop();
        cache.clear();
    }
}
