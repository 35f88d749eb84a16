package io.reme.query;

import org.apache.kafka.streams.KafkaStreams;

/** Liveness is the process answering; readiness is the Streams instance running (not rebalancing or restoring). */
public final class Health {
    private final KafkaStreams streams;

    public Health(KafkaStreams streams) {
        this.streams = streams;
    }

    /** What {@code /health/ready} answers. */
    public record Status(boolean ready, String streamsState) {
    }

    public Status readiness() {
        KafkaStreams.State state = streams.state();
        return new Status(state == KafkaStreams.State.RUNNING, state.name());
    }
}
