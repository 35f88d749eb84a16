package io.reme.sink;

import org.apache.kafka.connect.connector.Task;

/**
 * {@code diary} → {@code <root>/<tenant>/<user>/memory/YYYY-MM-DD.md} and {@code MEMORY.md}: the
 * latest version of each document, written whole. A document's records share a key, hence a
 * partition and a task, so any number of tasks is safe.
 */
public final class DiarySinkConnector extends FileSinkConnector {
    @Override
    public Class<? extends Task> taskClass() {
        return DiarySinkTask.class;
    }
}
