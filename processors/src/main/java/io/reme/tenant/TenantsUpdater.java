package io.reme.tenant;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global {@link TenantEntries#STORE} equal to the {@code tenants} topic: a record is stored
 * as written (bytes unchanged, so a restore, which copies the topic into the store without this
 * processor, gives the same store), a tombstone deletes. A record of the wrong shape is skipped with a
 * WARN line: a global store has no dead-letter sink, and failing would stop every instance's global thread.
 */
public final class TenantsUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(TenantsUpdater.class);

    private KeyValueStore<String, byte[]> store;

    public static ProcessorSupplier<String, byte[], Void, Void> supplier() {
        return TenantsUpdater::new;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(TenantEntries.STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) {
            LOG.warn("tenant record skipped reason=no key");
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
            return;
        }
        String problem = TenantEntries.problem(record.key(), record.value());
        if (problem != null) {
            LOG.warn("tenant record skipped key={} reason={}", record.key(), problem);
            return;
        }
        store.put(record.key(), record.value());
    }
}
