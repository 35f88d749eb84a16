package io.reme.api.tenant;

import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** A read-only store over a sorted map, as the global store answers. */
public record MapStore(NavigableMap<String, byte[]> map) implements ReadOnlyKeyValueStore<String, byte[]> {
    @Override
    public byte[] get(String key) {
        return map.get(key);
    }

    @Override
    public KeyValueIterator<String, byte[]> range(String from, String to) {
        return iterator(map.subMap(from, true, to, true));
    }

    @Override
    public KeyValueIterator<String, byte[]> all() {
        return iterator(map);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<String, byte[]> prefixScan(P prefix, PS serializer) {
        String text = (String) prefix;
        return iterator(map.subMap(text, true, text + Character.MAX_VALUE, false));
    }

    @Override
    public long approximateNumEntries() {
        return map.size();
    }

    private static KeyValueIterator<String, byte[]> iterator(Map<String, byte[]> entries) {
        Iterator<Map.Entry<String, byte[]>> it = Map.copyOf(entries).entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .iterator();
        return new KeyValueIterator<>() {
            @Override
            public void close() {}

            @Override
            public String peekNextKey() {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public KeyValue<String, byte[]> next() {
                Map.Entry<String, byte[]> next = it.next();
                return KeyValue.pair(next.getKey(), next.getValue());
            }
        };
    }
}
