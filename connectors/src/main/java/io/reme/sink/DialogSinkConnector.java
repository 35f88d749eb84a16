package io.reme.sink;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;

/**
 * {@code dialog} → {@code <root>/<tenant>/<user>/dialog/YYYY-MM-DD.jsonl}, one archived message per
 * line. Always one task: records are keyed by session, so one user's sessions of a day arrive on
 * different partitions and two tasks would append to the same file at once. {@code request.secret}
 * (the deployment's) checks the signature of erasure markers.
 */
public final class DialogSinkConnector extends FileSinkConnector {
    @Override
    public Class<? extends Task> taskClass() {
        return DialogSinkTask.class;
    }

    @Override
    public ConfigDef config() {
        return DialogSinkTask.settings();
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return super.taskConfigs(1);
    }
}
