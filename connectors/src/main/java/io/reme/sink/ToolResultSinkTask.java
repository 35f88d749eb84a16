package io.reme.sink;

import io.reme.workspace.AtomicFiles;
import io.reme.workspace.RefusedPathException;
import io.reme.workspace.Workspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each full tool output to its file (modification time = record time, so the retention
 * sweep ages files as Kafka ages records), deletes it on a tombstone, and at most once a minute
 * deletes the tenant's outputs older than the retention.
 */
public final class ToolResultSinkTask extends FileSinkTask {
    static final long DEFAULT_RETENTION_MS = Duration.ofDays(3).toMillis();
    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(ToolResultSinkTask.class);

    private final Clock clock;
    private Duration retention;
    private Instant lastSweep = Instant.EPOCH;

    public ToolResultSinkTask() {
        this(Clock.systemUTC());
    }

    ToolResultSinkTask(Clock clock) {
        this.clock = clock;
    }

    static ConfigDef settings() {
        return FileSinkConfig.definition()
                .define(
                        FileSinkConfig.RETENTION_MS,
                        ConfigDef.Type.LONG,
                        DEFAULT_RETENTION_MS,
                        ConfigDef.Range.atLeast(1),
                        ConfigDef.Importance.MEDIUM,
                        "Tool outputs older than this (by record time) are deleted; set it to the topic's retention.ms.");
    }

    @Override
    ConfigDef definition() {
        return settings();
    }

    @Override
    void configure(FileSinkConfig config) {
        retention = Duration.ofMillis(config.getLong(FileSinkConfig.RETENTION_MS));
    }

    @Override
    void write(Collection<SinkRecord> records) throws IOException {
        for (SinkRecord record : records) {
            Path file;
            try {
                String[] key = keyParts(record, 2, "tenant/toolResultId");
                file = workspace.toolResultFile(key[0], key[1]);
            } catch (IllegalArgumentException e) {
                reject(record, "unwritable tool result: " + e.getMessage());
                continue;
            }
            try {
                if (record.value() == null) {
                    AtomicFiles.deleteIfExists(workspace, file);
                    continue;
                }
                byte[] content = record.value() instanceof byte[] bytes
                        ? bytes
                        : text(record.value()).getBytes(StandardCharsets.UTF_8);
                long time = record.timestamp() == null ? clock.millis() : record.timestamp();
                AtomicFiles.write(workspace, file, content, FileTime.fromMillis(time));
            } catch (RefusedPathException e) {
                reject(record, e.getMessage());
            }
        }
        sweep();
    }

    /** Deletes outputs past the retention, in every tenant's folder. */
    private void sweep() throws IOException {
        Instant now = clock.instant();
        if (Duration.between(lastSweep, now).compareTo(SWEEP_EVERY) < 0) {
            return;
        }
        lastSweep = now;
        FileTime cutoff = FileTime.from(now.minus(retention));
        if (!Files.isDirectory(workspace.root())) {
            return;
        }
        try (DirectoryStream<Path> tenants = Files.newDirectoryStream(
                workspace.root(), path -> Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS))) {
            for (Path tenant : tenants) {
                Path dir = tenant.resolve(Workspace.TOOL_RESULTS);
                try {
                    if (AtomicFiles.attributesIfExists(workspace, dir)
                            .filter(BasicFileAttributes::isDirectory)
                            .isPresent()) {
                        deleteOlder(dir, cutoff);
                    }
                } catch (RefusedPathException e) {
                    LOG.warn("tool output folder not swept reason={}", e.getMessage());
                }
            }
        }
    }

    /** Only regular files: a link's age is not its target's, and the link itself is no output of ours. */
    private static void deleteOlder(Path dir, FileTime cutoff) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.txt")) {
            for (Path file : files) {
                BasicFileAttributes attributes =
                        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (attributes.isRegularFile() && attributes.lastModifiedTime().compareTo(cutoff) < 0) {
                    Files.deleteIfExists(file);
                    LOG.debug("tool output past retention deleted file={}", file);
                }
            }
        }
    }
}
