package io.reme.sink;

import io.reme.workspace.Workspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
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
 * means. A failed write to disk is retried: Connect delivers the same records again.
 */
abstract class FileSinkTask extends SinkTask {
    static final String VERSION = "1";
    private static final Logger LOG = LoggerFactory.getLogger(FileSinkTask.class);

    private ErrantRecordReporter reporter;
    Workspace workspace;

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        FileSinkConfig config = new FileSinkConfig(definition(), props);
        workspace = config.workspace();
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
        if (records.isEmpty()) {
            return;
        }
        try {
            write(records);
        } catch (IOException e) {
            throw new RetriableException("cannot write the working directory: " + e, e);
        }
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
        reporter.report(record, error);
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
    }
}
