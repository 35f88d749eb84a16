package io.reme.topology;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * The native memory of every RocksDB store of one instance, bounded: one block cache shared by all
 * stores, which also holds their index and filter blocks and is charged for their memtables. Without
 * it each store opens its own 50 MB cache and three 16 MB memtables, so the native memory grows with
 * the number of tasks and stores, not with the configuration.
 *
 * <p>One per Kafka Streams client, handed to {@link ConfigSetter} through the Streams properties as an
 * object under {@link #CONFIG}; closed after the client has closed (its stores still use it before).
 */
public final class RocksDbMemory implements AutoCloseable {
    /** The Streams property holding this instance's {@link RocksDbMemory}. */
    public static final String CONFIG = "reme.streams.rocksdb.memory";

    /**
     * Memtables no larger than this: the write buffer manager flushes the largest once the budget is met,
     * and many stores with a few large memtables each would flush at a fraction of their size anyway.
     */
    private static final long MAX_MEMTABLE_BYTES = 8L * 1024 * 1024;
    /** Index and filter blocks, and memtables, go into the cache's high-priority share. */
    private static final double HIGH_PRIORITY_SHARE = 0.1;

    static {
        // The cache is created before Streams opens any store, which is what loads the library otherwise.
        RocksDB.loadLibrary();
    }

    private final long capacityBytes;
    private final long writeBufferBytes;
    private final LRUCache cache;
    private final WriteBufferManager writeBuffers;
    private boolean closed;

    /**
     * @param capacityBytes the whole budget: cached blocks, index and filter blocks, and memtables
     * @param writeBufferBytes the share of it memtables may hold before the largest is flushed
     */
    public RocksDbMemory(long capacityBytes, long writeBufferBytes) {
        if (capacityBytes <= 0 || writeBufferBytes <= 0 || writeBufferBytes >= capacityBytes) {
            throw new IllegalArgumentException(
                    "need 0 < write buffers (" + writeBufferBytes + ") < capacity (" + capacityBytes + ")");
        }
        this.capacityBytes = capacityBytes;
        this.writeBufferBytes = writeBufferBytes;
        // Not a strict limit: a read that needs a block while every block is pinned would fail otherwise.
        this.cache = new LRUCache(capacityBytes, -1, false, HIGH_PRIORITY_SHARE);
        this.writeBuffers = new WriteBufferManager(writeBufferBytes, cache);
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes the cache holds now, memtables included; 0 once closed. */
    public synchronized long usageBytes() {
        return closed ? 0 : cache.getUsage();
    }

    /** Bytes of the cache in use by readers or pinned (index and filter blocks of the top level); 0 once closed. */
    public synchronized long pinnedBytes() {
        return closed ? 0 : cache.getPinnedUsage();
    }

    void configure(Options options) {
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setTableFormatConfig(table);
        options.setWriteBufferManager(writeBuffers);
        options.setWriteBufferSize(Math.min(MAX_MEMTABLE_BYTES, writeBufferBytes / 4));
        options.setMaxWriteBufferNumber(2);
    }

    /** Frees the cache; only once no store uses it (a metrics scrape may still ask, and gets 0). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            writeBuffers.close();
            cache.close();
        }
    }

    /**
     * Kafka Streams' {@code rocksdb.config.setter}: puts each store on the instance's shared budget.
     * Without a {@link RocksDbMemory} in the properties (a test driver) it leaves Streams' defaults.
     */
    public static final class ConfigSetter implements RocksDBConfigSetter {
        @Override
        public void setConfig(String storeName, Options options, Map<String, Object> configs) {
            if (configs.get(CONFIG) instanceof RocksDbMemory memory) {
                memory.configure(options);
            }
        }

        @Override
        public void close(String storeName, Options options) {
            // The cache and write buffer manager are the instance's, shared by every store: not closed here.
        }
    }
}
