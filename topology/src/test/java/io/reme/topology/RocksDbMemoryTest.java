package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** Real RocksDB databases configured as Kafka Streams configures its stores, on one bounded budget. */
class RocksDbMemoryTest {
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;

    /** Streams' own table config, before the setter runs: a block-based table with its own cache. */
    private static Options streamsLikeOptions() {
        Options options = new Options().setCreateIfMissing(true);
        options.setTableFormatConfig(new BlockBasedTableConfig().setBlockSize(4096));
        return options;
    }

    private static byte[] value(int i) {
        byte[] value = new byte[1024];
        Arrays.fill(value, (byte) ('a' + i % 26));
        return value;
    }

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void storesShareOneBudgetThatHoldsTheirBlocksAndMemtablesAndStaysNearItsCapacity() throws RocksDBException {
        try (RocksDbMemory memory = new RocksDbMemory(4 * MIB, MIB)) {
            Map<String, Object> configs = new HashMap<>(Map.of(RocksDbMemory.CONFIG, memory));
            RocksDbMemory.ConfigSetter setter = new RocksDbMemory.ConfigSetter();
            long afterFirst;
            try (Options options = streamsLikeOptions();
                    Options otherOptions = streamsLikeOptions()) {
                setter.setConfig("first", options, configs);
                setter.setConfig("second", otherOptions, configs);
                assertEquals(MIB / 4, options.writeBufferSize(), "a memtable is a quarter of the write buffers");
                try (RocksDB first = RocksDB.open(options, dir.resolve("first").toString());
                        RocksDB second =
                                RocksDB.open(otherOptions, dir.resolve("second").toString());
                        FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                    for (int i = 0; i < 200; i++) {
                        first.put(key(i), value(i));
                    }
                    afterFirst = memory.usageBytes();
                    assertTrue(afterFirst > 0, "the first store's memtable is charged to the shared cache");
                    // 32 MiB through each store, eight times the budget, then all of it read back.
                    for (int i = 0; i < 32 * 1024; i++) {
                        first.put(key(i), value(i));
                        second.put(key(i), value(i + 1));
                        assertTrue(memory.usageBytes() <= 5 * MIB, "at " + i + ": " + memory.usageBytes());
                    }
                    first.flush(flush);
                    second.flush(flush);
                    for (int i = 0; i < 32 * 1024; i += 7) {
                        assertArrayEquals(value(i), first.get(key(i)));
                        assertArrayEquals(value(i + 1), second.get(key(i)));
                        assertTrue(memory.usageBytes() <= 5 * MIB, "reading " + i + ": " + memory.usageBytes());
                    }
                    assertTrue(memory.usageBytes() > 2 * MIB, "read blocks are cached: " + memory.usageBytes());
                }
            }
        }
    }

    @Test
    void withoutABudgetInThePropertiesTheStoreKeepsStreamsDefaults() {
        try (Options options = streamsLikeOptions()) {
            long before = options.writeBufferSize();
            new RocksDbMemory.ConfigSetter().setConfig("store", options, Map.of());
            assertEquals(before, options.writeBufferSize());
        }
    }

    @Test
    void aClosedBudgetReportsNothingAndWriteBuffersMustFitInIt() {
        RocksDbMemory memory = new RocksDbMemory(8 * MIB, 2 * MIB);
        memory.close();
        memory.close();
        assertEquals(0, memory.usageBytes());
        assertEquals(0, memory.pinnedBytes());
        assertThrows(IllegalArgumentException.class, () -> new RocksDbMemory(MIB, MIB));
        assertThrows(IllegalArgumentException.class, () -> new RocksDbMemory(0, 0));
    }
}
