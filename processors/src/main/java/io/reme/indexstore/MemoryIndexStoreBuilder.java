package io.reme.indexstore;

import io.reme.dlq.InputLimit;
import java.util.Map;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Builds {@link MemoryIndexStore}s. Never logged and never cached: the {@code memories} topic is
 * the store's changelog (it is attached read-only to it) and Lucene does its own buffering.
 */
public final class MemoryIndexStoreBuilder implements StoreBuilder<MemoryIndexStore> {
    private final String name;
    private final InputLimit limit;

    /** @param limit memory records larger than this are skipped, in processing and in restore alike */
    public MemoryIndexStoreBuilder(String name, InputLimit limit) {
        this.name = name;
        this.limit = limit;
    }

    @Override
    public StoreBuilder<MemoryIndexStore> withCachingEnabled() {
        throw new UnsupportedOperationException("the memory index has no cache");
    }

    @Override
    public StoreBuilder<MemoryIndexStore> withCachingDisabled() {
        return this;
    }

    @Override
    public StoreBuilder<MemoryIndexStore> withLoggingEnabled(Map<String, String> config) {
        throw new UnsupportedOperationException("the memories topic is the memory index's changelog");
    }

    @Override
    public StoreBuilder<MemoryIndexStore> withLoggingDisabled() {
        return this;
    }

    @Override
    public MemoryIndexStore build() {
        return new MemoryIndexStore(name, limit);
    }

    @Override
    public Map<String, String> logConfig() {
        return Map.of();
    }

    @Override
    public boolean loggingEnabled() {
        return false;
    }

    @Override
    public String name() {
        return name;
    }
}
