package io.reme.sink;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;

/**
 * {@code tool-results} → {@code <root>/<tenant>/tool_result/<id>.txt}, the full output as it was
 * produced. A tombstone deletes the file; files older than {@code retention.ms} (the topic's
 * retention, by record time) are deleted too, since Kafka drops expired records without a tombstone.
 */
public final class ToolResultSinkConnector extends FileSinkConnector {
    @Override
    public Class<? extends Task> taskClass() {
        return ToolResultSinkTask.class;
    }

    @Override
    public ConfigDef config() {
        return ToolResultSinkTask.settings();
    }
}
