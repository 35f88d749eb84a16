package io.reme.local;

/** A Kafka broker running in this JVM (see {@link LocalRuntime#startBroker}); closing it stops it. */
public interface LocalBroker extends AutoCloseable {
    /** Where clients reach it, {@code host:port}. */
    String bootstrapServers();

    @Override
    void close();
}
