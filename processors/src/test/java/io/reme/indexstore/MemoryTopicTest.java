package io.reme.indexstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.json.Json;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class MemoryTopicTest {
    private static final MemoryPartitioning PARTITIONING = new MemoryPartitioning(4);
    private static final MemoryTopic TOPIC = new MemoryTopic("reme.memories", 12, PARTITIONING);

    private static MemoryRecord memory(String tenant, String id) {
        return MemoryRecord.of(
                id, tenant, "u1", "s1", MemoryType.PERSONAL, "likes green tea", Instant.parse("2026-12-07T10:00:00Z"));
    }

    @Test
    void aMemoryIsKeyedByTenantAndIdInThePartitionItsTenantsSearchesAsk() {
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            MemoryRecord memory = memory("acme", "m-" + i);
            ProducerRecord<String, byte[]> record = TOPIC.upsert(memory);
            assertEquals("reme.memories", record.topic());
            assertEquals("acme/m-" + i, record.key());
            assertArrayEquals(Json.bytes(memory), record.value());
            assertEquals(PARTITIONING.partition("acme", "m-" + i, 12), record.partition());
            assertTrue(
                    PARTITIONING.partitionsOf("acme", 12).contains(record.partition()),
                    "a search of the tenant asks the partition its memory is in");
            used.add(record.partition());
        }
        assertEquals(PARTITIONING.partitionsOf("acme", 12), used, "a big tenant's memories spread over its buckets");
    }

    @Test
    void aDeleteIsATombstoneWhereTheMemoryIs() {
        MemoryRecord memory = memory("acme", "tool:grep:1");
        ProducerRecord<String, byte[]> delete = TOPIC.delete(MemoryKey.of(memory));
        ProducerRecord<String, byte[]> upsert = TOPIC.upsert(memory);
        assertEquals(upsert.key(), delete.key());
        assertEquals(upsert.partition(), delete.partition());
        assertNull(delete.value());
    }

    @Test
    void aTopicHasPartitions() {
        assertThrows(IllegalArgumentException.class, () -> new MemoryTopic("reme.memories", 0, PARTITIONING));
    }
}
