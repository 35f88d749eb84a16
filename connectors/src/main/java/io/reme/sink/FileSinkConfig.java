package io.reme.sink;

import io.reme.topic.RecordLimits;
import io.reme.workspace.Workspace;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The settings every file sink takes; {@link ToolResultSinkConnector} adds its retention and
 * {@link DialogSinkConnector} the request secret.
 */
final class FileSinkConfig extends AbstractConfig {
    static final String WORKSPACE_DIR = "workspace.dir";
    static final String RETENTION_MS = "retention.ms";
    static final String REQUEST_SECRET = "request.secret";
    static final String RECORD_MAX_BYTES = "record.max.bytes";
    /** The pipeline's default input limit plus headroom: no record it writes to a sink's topic is larger. */
    static final int DEFAULT_RECORD_MAX_BYTES = RecordLimits.DEFAULT_INPUT_BYTES + RecordLimits.HEADROOM;

    FileSinkConfig(ConfigDef definition, Map<String, String> props) {
        super(definition, props);
    }

    static ConfigDef definition() {
        return new ConfigDef()
                .define(
                        WORKSPACE_DIR,
                        ConfigDef.Type.STRING,
                        ConfigDef.NO_DEFAULT_VALUE,
                        new ConfigDef.NonEmptyString(),
                        ConfigDef.Importance.HIGH,
                        "Root of the working directory: files go to <root>/<tenant>/...")
                .define(
                        RECORD_MAX_BYTES,
                        ConfigDef.Type.INT,
                        DEFAULT_RECORD_MAX_BYTES,
                        ConfigDef.Range.atLeast(1024),
                        ConfigDef.Importance.MEDIUM,
                        "Largest record (key and value) the sink writes; a larger one is rejected to the dead letter"
                                + " queue. Set it to the pipeline's input limit (reme.input.max-bytes) plus 64 KiB.");
    }

    Workspace workspace() {
        return new Workspace(Path.of(getString(WORKSPACE_DIR)));
    }
}
