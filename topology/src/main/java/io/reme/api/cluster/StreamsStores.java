package io.reme.api.cluster;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;

/**
 * This instance's Kafka Streams client as the API reads it: its state, its local stores, where the application's
 * keys and partitions live and how far its store copies lag. Each method is {@link KafkaStreams}' own and keeps its
 * contract (what it throws before the client starts, while it rebalances, once it stopped). A seam so that the API's
 * tests run over a client that answers as a real one does rather than over none; {@link #of} is the real one.
 */
public interface StreamsStores {

    /** The stores of a Kafka Streams client, asked of the client itself. */
    static StreamsStores of(KafkaStreams streams) {
        return new Client(streams);
    }

    /** @see KafkaStreams#state() */
    KafkaStreams.State state();

    /** @see KafkaStreams#store(StoreQueryParameters) */
    <T> T store(StoreQueryParameters<T> parameters);

    /** @see KafkaStreams#query(StateQueryRequest) */
    <R> StateQueryResult<R> query(StateQueryRequest<R> request);

    /** @see KafkaStreams#queryMetadataForKey(String, Object, Serializer) */
    <K> KeyQueryMetadata queryMetadataForKey(String store, K key, Serializer<K> keySerializer);

    /** @see KafkaStreams#queryMetadataForKey(String, Object, StreamPartitioner) */
    <K> KeyQueryMetadata queryMetadataForKey(String store, K key, StreamPartitioner<? super K, ?> partitioner);

    /** @see KafkaStreams#metadataForAllStreamsClients() */
    Collection<StreamsMetadata> metadataForAllStreamsClients();

    /** @see KafkaStreams#allLocalStorePartitionLags() */
    Map<String, Map<Integer, LagInfo>> allLocalStorePartitionLags();

    /** A Kafka Streams client, asked directly. */
    record Client(KafkaStreams streams) implements StreamsStores {
        @Override
        public KafkaStreams.State state() {
            return streams.state();
        }

        @Override
        public <T> T store(StoreQueryParameters<T> parameters) {
            return streams.store(parameters);
        }

        @Override
        public <R> StateQueryResult<R> query(StateQueryRequest<R> request) {
            return streams.query(request);
        }

        @Override
        public <K> KeyQueryMetadata queryMetadataForKey(String store, K key, Serializer<K> keySerializer) {
            return streams.queryMetadataForKey(store, key, keySerializer);
        }

        @Override
        public <K> KeyQueryMetadata queryMetadataForKey(
                String store, K key, StreamPartitioner<? super K, ?> partitioner) {
            return streams.queryMetadataForKey(store, key, partitioner);
        }

        @Override
        public Collection<StreamsMetadata> metadataForAllStreamsClients() {
            return streams.metadataForAllStreamsClients();
        }

        @Override
        public Map<String, Map<Integer, LagInfo>> allLocalStorePartitionLags() {
            return streams.allLocalStorePartitionLags();
        }
    }
}
