package io.reme.sink;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DeadLetterPayload;
import io.reme.workspace.Workspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the file sink tasks share. Records arrive as bytes (or strings); a record that cannot be
 * written (unreadable value, an ID that is not allowed in a path) goes to the connector's dead
 * letter queue with the reason, through Connect's errant record reporter, and the rest go on. With
 * no dead letter queue configured it fails the task, as Connect's {@code errors.tolerance=none}
 * means.
 *
 * <p>A failed write to disk (a full or read-only disk) is retried by the task itself, every {@link #RETRY_EVERY},
 * until it succeeds: the records stay with the task, its partitions are paused so no more arrive, and their
 * offsets are not committed past the first unwritten record ({@link #preCommit}). It is said once at ERROR when it
 * starts and once at INFO when it ends, counted ({@link WorkspaceWrites}), and never a stack trace per attempt:
 * Connect's own retry (a {@code RetriableException} from {@code put}) logs one at ERROR every time, twice a second.
 *
 * <p>A record larger than {@code record.max.bytes} is rejected unread, so a writer to a sink's topic
 * cannot make it write a file of any size. A rejected record whose key, value or headers are too large
 * for the dead-letter producer's requests (1 MiB by Kafka's default) travels as an excerpt with the
 * original sizes and digests in the pipeline's dead-letter headers, instead of failing to send and
 * being lost.
 */
abstract class FileSinkTask extends SinkTask {
    static final String VERSION = "1";
    private static final Logger LOG = LoggerFactory.getLogger(FileSinkTask.class);
    /** Largest key or value a dead letter carries whole, well within a 1 MiB request with Connect's context headers. */
    static final int DEAD_LETTER_MAX_BYTES = 256 * 1024;
    /** Original headers a cut dead letter keeps, in bytes of names and values. */
    static final int DEAD_LETTER_MAX_HEADER_BYTES = DeadLetterPayload.MAX_ORIGINAL_HEADER_BYTES;

    /** How long a failed write waits before the next attempt. */
    static final Duration RETRY_EVERY = Duration.ofSeconds(2);

    private ErrantRecordReporter reporter;
    private int recordMaxBytes;
    Workspace workspace;
    /** Records whose write failed, in the order they came, written before any later one. */
    private final List<SinkRecord> unwritten = new ArrayList<>();
    /** When the writes began to fail, and how many attempts failed since; null while they succeed. */
    private Instant failingSince;

    private long failedAttempts;
    private final String name = getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this));

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        FileSinkConfig config = new FileSinkConfig(definition(), props);
        workspace = config.workspace();
        recordMaxBytes = config.getInt(FileSinkConfig.RECORD_MAX_BYTES);
        configure(config);
        reporter = context == null ? null : context.errantRecordReporter();
    }

    /** The settings this task accepts. */
    ConfigDef definition() {
        return FileSinkConfig.definition();
    }

    /** Reads task-specific settings; nothing by default. */
    void configure(FileSinkConfig config) {}

    @Override
    public void put(Collection<SinkRecord> records) {
        for (SinkRecord record : records) {
            long size = size(record.key()) + size(record.value());
            if (size > recordMaxBytes) {
                reject(record, "record of " + size + " bytes is over record.max.bytes (" + recordMaxBytes + ")");
            } else {
                unwritten.add(record);
            }
        }
        if (unwritten.isEmpty()) {
            return;
        }
        try {
            write(unwritten);
        } catch (IOException e) {
            failing(e);
            return;
        } catch (RuntimeException e) {
            // The task fails (a rejected record without a dead letter queue): Connect reads them again.
            unwritten.clear();
            throw e;
        }
        unwritten.clear();
        if (failingSince != null) {
            LOG.info(
                    "workspace writable again task={} after={} failedAttempts={}",
                    name,
                    Duration.between(failingSince, Instant.now()),
                    failedAttempts);
            WorkspaceWrites.recovered(name);
            failingSince = null;
            failedAttempts = 0;
            if (context != null) {
                context.resume(context.assignment().toArray(TopicPartition[]::new));
            }
        }
    }

    /** A write failed: said once, counted, the partitions paused and the records kept for the next attempt. */
    private void failing(IOException e) {
        failedAttempts++;
        Instant now = Instant.now();
        WorkspaceWrites.failed(name, now);
        if (failingSince == null) {
            failingSince = now;
            LOG.error(
                    "workspace not writable, records kept and written again every {} until it is (said again when"
                            + " it is) task={} records={} error={}",
                    RETRY_EVERY,
                    name,
                    unwritten.size(),
                    e.toString());
        } else {
            LOG.debug("workspace still not writable task={} attempt={} error={}", name, failedAttempts, e.toString());
        }
        if (context != null) {
            context.pause(context.assignment().toArray(TopicPartition[]::new));
            context.timeout(RETRY_EVERY.toMillis());
        }
    }

    /** Commits no partition past its first record not yet written: after a restart it is read again. */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        flush(currentOffsets);
        if (unwritten.isEmpty()) {
            return currentOffsets;
        }
        Map<TopicPartition, OffsetAndMetadata> written = new HashMap<>(currentOffsets);
        for (SinkRecord record : unwritten) {
            TopicPartition partition = new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
            OffsetAndMetadata first = written.get(partition);
            if (first == null || record.originalKafkaOffset() < first.offset()) {
                written.put(partition, new OffsetAndMetadata(record.originalKafkaOffset()));
            }
        }
        return written;
    }

    /** Partitions taken away: their unwritten records are the next owner's to read again. */
    @Override
    public void close(Collection<TopicPartition> partitions) {
        unwritten.removeIf(r -> partitions.contains(new TopicPartition(r.originalTopic(), r.originalKafkaPartition())));
        if (unwritten.isEmpty() && failingSince != null) {
            WorkspaceWrites.recovered(name);
            failingSince = null;
            failedAttempts = 0;
        }
    }

    /** Records kept for the next attempt: for tests. */
    int unwritten() {
        return unwritten.size();
    }

    /** Writes a batch; calls {@link #reject} for records that cannot be written. */
    abstract void write(Collection<SinkRecord> records) throws IOException;

    void reject(SinkRecord record, String reason) {
        DataException error = new DataException(reason);
        LOG.warn(
                "record rejected topic={} partition={} offset={} reason={}",
                record.topic(),
                record.kafkaPartition(),
                record.kafkaOffset(),
                reason);
        if (reporter == null) {
            throw error;
        }
        reporter.report(deadLetter(record), error);
    }

    /**
     * The record as the dead letter queue gets it: itself when it fits a dead-letter request, else its key
     * and value cut to excerpts and its headers to {@link #DEAD_LETTER_MAX_HEADER_BYTES}, with the sizes
     * and SHA-256 digests of the originals (the pipeline's own dead-letter headers).
     */
    static SinkRecord deadLetter(SinkRecord record) {
        long headerBytes = 0;
        for (Header header : record.headers()) {
            headerBytes += header.key().length() + size(header.value());
        }
        if (size(record.key()) <= DEAD_LETTER_MAX_BYTES
                && size(record.value()) <= DEAD_LETTER_MAX_BYTES
                && headerBytes <= DEAD_LETTER_MAX_HEADER_BYTES) {
            return record;
        }
        ConnectHeaders headers = new ConnectHeaders();
        int used = 0;
        int dropped = 0;
        for (Header header : record.headers()) {
            long cost = header.key().length() + size(header.value());
            if (used + cost > DEAD_LETTER_MAX_HEADER_BYTES) {
                dropped++;
            } else {
                used += (int) cost;
                headers.add(header);
            }
        }
        if (dropped > 0) {
            headers.addBytes(DeadLetterHeaders.HEADERS_DROPPED, utf8(Integer.toString(dropped)));
        }
        DeadLetterPayload key = DeadLetterPayload.of(bytes(record.key()), DEAD_LETTER_MAX_BYTES);
        DeadLetterPayload value = DeadLetterPayload.of(bytes(record.value()), DEAD_LETTER_MAX_BYTES);
        describe(headers, DeadLetterHeaders.KEY, key);
        describe(headers, DeadLetterHeaders.VALUE, value);
        // A plain SinkRecord, so that Connect converts these fields instead of sending the original record.
        return new SinkRecord(
                record.topic(),
                record.kafkaPartition(),
                Schema.OPTIONAL_BYTES_SCHEMA,
                key.bytes(),
                Schema.OPTIONAL_BYTES_SCHEMA,
                value.bytes(),
                record.kafkaOffset(),
                record.timestamp(),
                record.timestampType(),
                headers);
    }

    private static void describe(ConnectHeaders headers, String prefix, DeadLetterPayload payload) {
        if (payload.bytes() == null) {
            return;
        }
        headers.addBytes(prefix + ".size", utf8(Integer.toString(payload.size())));
        headers.addBytes(prefix + ".sha256", utf8(payload.sha256()));
        headers.addBytes(prefix + ".truncated", utf8(Boolean.toString(payload.truncated())));
    }

    /** Size in bytes of a key, value or header as the converters hand it over (bytes or a string). */
    private static long size(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof byte[] bytes) {
            return bytes.length;
        }
        return bytes(value).length;
    }

    private static byte[] bytes(Object value) {
        if (value == null || value instanceof byte[]) {
            return (byte[]) value;
        }
        return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (value instanceof String string) {
            return string;
        }
        throw new IllegalArgumentException("expected bytes or a string, got "
                + (value == null ? "null" : value.getClass().getSimpleName())
                + " (use the ByteArrayConverter or StringConverter)");
    }

    /** The parts of a key {@code a/b[/c]}, exactly {@code parts} of them. */
    static String[] keyParts(SinkRecord record, int parts, String shape) {
        String key = record.key() == null ? null : text(record.key());
        String[] split = key == null ? new String[0] : key.split("/", -1);
        if (split.length != parts) {
            throw new IllegalArgumentException("key must be " + shape + ", got '" + key + "'");
        }
        return split;
    }

    @Override
    public void stop() {
        reporter = null;
        WorkspaceWrites.recovered(name);
    }
}
