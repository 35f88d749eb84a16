package io.reme.sink;

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
                        "Root of the working directory: files go to <root>/<tenant>/...");
    }

    Workspace workspace() {
        return new Workspace(Path.of(getString(WORKSPACE_DIR)));
    }
}
