package io.reme.sink;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.sink.SinkConnector;

/** What the three file sink connectors share: validated settings handed unchanged to every task. */
abstract class FileSinkConnector extends SinkConnector {
    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        new FileSinkConfig(config(), props);
        this.props = Map.copyOf(props);
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.nCopies(maxTasks, props);
    }

    @Override
    public void stop() {
        props = null;
    }

    @Override
    public ConfigDef config() {
        return FileSinkConfig.definition();
    }

    @Override
    public String version() {
        return FileSinkTask.VERSION;
    }
}
