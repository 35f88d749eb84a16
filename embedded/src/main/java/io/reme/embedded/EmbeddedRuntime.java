package io.reme.embedded;

import io.reme.local.FileSinkSettings;
import io.reme.local.LocalBroker;
import io.reme.local.LocalRuntime;
import java.nio.file.Path;
import java.util.Map;

/** The embedded default as the application finds it ({@code META-INF/services}). */
public final class EmbeddedRuntime implements LocalRuntime {

    @Override
    public LocalBroker startBroker(Path dataDir) {
        return EmbeddedKafka.start(dataDir);
    }

    @Override
    public AutoCloseable startFileSinks(
            Map<String, Object> clientProps,
            Path dataDir,
            FileSinkSettings settings,
            FileSinkSettings.Membership membership) {
        return FileSinks.start(clientProps, dataDir, settings, membership);
    }
}
