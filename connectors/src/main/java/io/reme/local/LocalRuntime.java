package io.reme.local;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The embedded default's parts, which run inside the application's JVM: a single-node Kafka broker and a Kafka
 * Connect worker running the file sinks. They need Kafka's server and Connect-runtime classes, which a deployment on
 * a real cluster never uses, so they live in a module of their own that the demo jar holds and the application jar
 * does not; the application finds them with the {@link ServiceLoader}.
 */
public interface LocalRuntime {

    /** Starts a single-node KRaft broker keeping its log under {@code dataDir} and returns once it takes requests. */
    LocalBroker startBroker(Path dataDir);

    /**
     * Starts the file sink connectors in an in-process Connect worker and returns once every task runs.
     *
     * @param clientProps bootstrap servers and any client settings (security), given to the worker
     * @param dataDir where the worker keeps its own small state
     */
    AutoCloseable startFileSinks(
            Map<String, Object> clientProps,
            Path dataDir,
            FileSinkSettings settings,
            FileSinkSettings.Membership membership);

    /** The runtime on the class path, if this jar holds one. */
    static Optional<LocalRuntime> find() {
        return ServiceLoader.load(LocalRuntime.class).findFirst();
    }
}
