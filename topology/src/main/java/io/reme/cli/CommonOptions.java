package io.reme.cli;

import io.reme.config.AppConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** Options every verb takes; each overrides its {@code REME_*} environment variable and the config file. */
public final class CommonOptions {
    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Data directory (env REME_DATA_DIR; default ./reme-data).")
    Path dataDir;

    @Option(
            names = "--http-port",
            paramLabel = "N",
            description = "HTTP API port, 0 = pick a free one (env REME_HTTP_PORT; default 8080).")
    Integer httpPort;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "H:P",
            description = "Kafka cluster; absent = embedded broker (env REME_BOOTSTRAP_SERVERS).")
    String bootstrapServers;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with reme.* options (see README).")
    Path configFile;

    /** Loads the configuration: these options, then the environment, then the file, then defaults. */
    AppConfig load(Map<String, String> extraOverrides) {
        Map<String, String> overrides = new HashMap<>(extraOverrides);
        if (dataDir != null) {
            overrides.put(AppConfig.DATA_DIR.name(), dataDir.toString());
        }
        if (httpPort != null) {
            overrides.put(AppConfig.HTTP_PORT.name(), httpPort.toString());
        }
        if (bootstrapServers != null) {
            overrides.put(AppConfig.BOOTSTRAP_SERVERS.name(), bootstrapServers);
        }
        Map<String, String> file = configFile == null ? Map.of() : AppConfig.readFile(configFile);
        return AppConfig.load(file, System.getenv(), overrides);
    }
}
