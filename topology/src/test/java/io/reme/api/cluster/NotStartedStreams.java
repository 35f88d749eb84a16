package io.reme.api.cluster;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.StreamsNotStartedException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;

/**
 * A Streams client that was built and never started, answering as {@link KafkaStreams} does then: {@code
 * CREATED}, every store, query and metadata lookup refused with {@link StreamsNotStartedException} (an {@code
 * InvalidStateStoreException}), and no store copies to lag.
 */
public final class NotStartedStreams implements StreamsStores {

    @Override
    public KafkaStreams.State state() {
        return KafkaStreams.State.CREATED;
    }

    @Override
    public <T> T store(StoreQueryParameters<T> parameters) {
        throw notStarted();
    }

    @Override
    public <R> StateQueryResult<R> query(StateQueryRequest<R> request) {
        throw notStarted();
    }

    @Override
    public <K> KeyQueryMetadata queryMetadataForKey(String store, K key, Serializer<K> keySerializer) {
        throw notStarted();
    }

    @Override
    public <K> KeyQueryMetadata queryMetadataForKey(String store, K key, StreamPartitioner<? super K, ?> partitioner) {
        throw notStarted();
    }

    @Override
    public Collection<StreamsMetadata> metadataForAllStreamsClients() {
        throw notStarted();
    }

    @Override
    public Map<String, Map<Integer, LagInfo>> allLocalStorePartitionLags() {
        return Map.of();
    }

    private static StreamsNotStartedException notStarted() {
        return new StreamsNotStartedException("KafkaStreams has not been started, you can retry after calling start()");
    }
}
