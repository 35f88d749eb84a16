package io.reme.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A process of the application jar against the cluster: an instance ({@code run}, the Streams app and
 * the HTTP API, authenticating as {@code reme-app}) or the separate {@code workers} (as
 * {@code reme-workers}). Instances run neither workers nor sinks: those are the workers process and
 * Connect. Its Kafka client settings are the {@code kafka.*} entries of its own config file.
 */
public final class RemeProcess {
    private final ClusterSpec spec;
    private final String verb;
    private final int instance;
    private final Path home;
    private final ChildProcess process;

    private RemeProcess(ClusterSpec spec, String verb, int instance, String name) {
        this.spec = spec;
        this.verb = verb;
        this.instance = instance;
        this.home = spec.dir().resolve(name);
        this.process = new ChildProcess(
                name,
                home.resolve("pid"),
                home.resolve(name + ".log"),
                spec.dir().toString());
    }

    /** Application instance {@code instance} (from 1). */
    static RemeProcess instance(ClusterSpec spec, int instance) {
        return new RemeProcess(spec, "run", instance, "app-" + instance);
    }

    static RemeProcess workers(ClusterSpec spec) {
        return new RemeProcess(spec, "workers", 0, "workers");
    }

    public ChildProcess process() {
        return process;
    }

    /** The HTTP port: an instance's API, or the workers' {@code /metrics}. */
    public int port() {
        return instance == 0 ? spec.workersPort() : spec.appPorts().get(instance - 1);
    }

    /**
     * @param environment {@code REME_*} options added to (and overriding) the cluster's own
     */
    void start(Launcher launcher, Path appJar, Map<String, String> environment, boolean detached) {
        String principal = instance == 0 ? "reme-workers" : "reme-app";
        Map<String, String> kafka = new LinkedHashMap<>();
        kafka.put("kafka.security.protocol", "SASL_PLAINTEXT");
        kafka.put("kafka.sasl.mechanism", "SCRAM-SHA-512");
        kafka.put("kafka.sasl.jaas.config", spec.scramJaas(principal));
        Path config =
                PropertiesFile.write(home.resolve("reme.properties"), principal + "'s Kafka client settings", kafka);

        List<String> command = new ArrayList<>(List.of(
                launcher.java().toString(),
                instance == 0 ? "-Xmx768m" : "-Xmx1g",
                "-XX:+UseG1GC",
                // As the README starts the app: Lucene compares vectors with SIMD only with this module.
                "--add-modules",
                "jdk.incubator.vector",
                "-jar",
                appJar.toAbsolutePath().toString(),
                verb,
                "--bootstrap-servers",
                spec.bootstrapServers(),
                "--config",
                config.toString(),
                "--data-dir",
                home.resolve("data").toString(),
                "--http-port",
                Integer.toString(port())));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("REME_API_KEYS", spec.apiKeysOption());
        env.put("REME_REQUEST_SECRET", spec.requestSecret());
        env.put("REME_HTTP_HOST", ClusterSpec.HOST);
        env.put("REME_HTTP_ADVERTISED_HOST", ClusterSpec.HOST);
        env.put("REME_TOPIC_REPLICATION_FACTOR", "3");
        env.put("REME_WORKERS_EMBEDDED", "false");
        env.put("REME_SINKS_EMBEDDED", "false");
        env.put("REME_WORKSPACE_DIR", spec.dir().resolve("workspace").toString());
        env.put("REME_STREAMS_STANDBY_REPLICAS", "1");
        // The tokenizer's native library is unpacked here, not under the user's home.
        env.put("DJL_CACHE_DIR", spec.dir().resolve("djl-cache").toString());
        if (instance == 0 && !spec.appPorts().isEmpty()) {
            // Extraction merges with the memories already stored, which only an instance can search.
            env.put("REME_WORKERS_SEARCH_URL", spec.appUrl(1));
        }
        env.putAll(environment);
        process.start(command, env, detached);
    }
}
