package io.reme.erasure;

import io.reme.json.JsonSerde;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
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
        return store(SESSIONS);
    }

    public static StoreBuilder<KeyValueStore<String, ErasureReport>> documents() {
        return store(DOCUMENTS);
    }

    public static StoreBuilder<KeyValueStore<String, ErasureReport>> memories() {
        return store(MEMORIES);
    }

    private static StoreBuilder<KeyValueStore<String, ErasureReport>> store(String name) {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(name), Serdes.String(), JsonSerde.of(ErasureReport.class))
                .withLoggingEnabled(Map.of());
    }
}
