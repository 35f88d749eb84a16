package io.reme.edge;

import io.reme.api.cluster.StreamsStores;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Liveness is the process answering; readiness is the Streams instance running (not rebalancing or
 * restoring) with no stream thread failing again and again.
 */
public final class Health {
    private final StreamsStores streams;
    private final StreamThreadFailures failures;

    public Health(StreamsStores streams, StreamThreadFailures failures) {
        this.streams = streams;
        this.failures = failures;
    }

    /**
     * What {@code /health/ready} answers.
     *
     * @param threadFailures stream thread failures within the configured window
     * @param lastThreadError the last of them, or null
     */
    public record Status(boolean ready, String streamsState, int threadFailures, String lastThreadError) {}

    public Status readiness() {
        KafkaStreams.State state = streams.state();
        boolean failing = failures.failing();
        return new Status(
                state == KafkaStreams.State.RUNNING && !failing, state.name(), failures.recent(), failures.lastError());
    }
}
