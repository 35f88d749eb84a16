package io.reme.erasure;

import io.reme.json.JsonSerde;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The logged stores of {@link ErasureReport}s, {@code tenant/user} (or {@code tenant/*}) → the latest
 * report: one per session partition, one per diary partition, one per memory partition. Queried by the API to answer how an
 * erasure went; they hold counts and IDs only, never content.
 */
public final class ErasureStores {
    public static final String SESSIONS = "session-erasures";
    public static final String DOCUMENTS = "diary-erasures";
    public static final String MEMORIES = "memory-erasures";

    private ErasureStores() {}

    public static StoreBuilder<KeyValueStore<String, ErasureReport>> sessions() {
        return store(Stores.persistentKeyValueStore(SESSIONS));
    }

    public static StoreBuilder<KeyValueStore<String, ErasureReport>> documents() {
        return store(Stores.persistentKeyValueStore(DOCUMENTS));
    }

    /**
     * In memory, restored from its changelog at every start: it shares a task with the memory index, and
     * under exactly-once Streams wipes a whole task after a crash when any persistent store of it has no
     * checkpoint, which a RocksDB store never has then. A persistent store here cost every kill -9 the
     * rebuild of every index. Erasure reports are few (one per erasure and partition).
     */
    public static StoreBuilder<KeyValueStore<String, ErasureReport>> memories() {
        return store(Stores.inMemoryKeyValueStore(MEMORIES));
    }

    private static StoreBuilder<KeyValueStore<String, ErasureReport>> store(KeyValueBytesStoreSupplier supplier) {
        return Stores.keyValueStoreBuilder(supplier, Serdes.String(), JsonSerde.of(ErasureReport.class))
                .withLoggingEnabled(Map.of());
    }
}
