package io.reme.bench;

import io.reme.indexstore.MemoryPartitioning;
import io.reme.json.Json;
import io.reme.search.MemoryKey;
import io.reme.search.MemoryRecord;
import io.reme.topic.Topics;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Writes the first memories of a {@link MemoryCorpus}, with their vectors, straight to the {@code memories} topic. */
final class CorpusWriter {
    private CorpusWriter() {}

    /**
     * Writes memories {@code 0..memories-1} each to the partition the service would give it.
     *
     * @return the id of the last memory each partition got (a partition applies in order: once that one is
     *     found, the partition holds them all)
     */
    static Map<Integer, String> write(
            String bootstrap, Topics topics, MemoryCorpus corpus, long memories, int partitions, int buckets)
            throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        MemoryPartitioning partitioning = new MemoryPartitioning(buckets);
        Map<Integer, String> last = new TreeMap<>();
        Future<RecordMetadata> sent = null;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long n = 0; n < memories; n++) {
                MemoryRecord record = corpus.memory(n);
                int partition = partitioning.partition(record.tenant(), record.id(), partitions);
                sent = producer.send(new ProducerRecord<>(
                        topics.memories(), partition, MemoryKey.of(record).bytes(), Json.bytes(record)));
                last.put(partition, record.id());
            }
            producer.flush();
            sent.get();
        }
        return last;
    }
}
