package io.reme.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Kafka Connect worker in distributed mode, run by Kafka's own {@code ConnectDistributed} main, with
 * the application jar on its {@code plugin.path}; it authenticates as {@code reme-connect} and runs the
 * three file sinks of {@code docker/connect/connectors}, created through its REST API.
 */
public final class ConnectWorker {
    static final String MAIN = "org.apache.kafka.connect.cli.ConnectDistributed";
    /** The worker group, and the prefix of its config, offset and status topics. */
    static final String GROUP = "reme-connect";
    /** The connector settings of {@code docker/connect/connectors}, packaged as resources. */
    static final List<String> CONNECTORS = List.of("reme-dialog-files", "reme-diary-files", "reme-tool-result-files");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClusterSpec spec;
    private final Path home;
    private final ChildProcess process;

    ConnectWorker(ClusterSpec spec) {
        this.spec = spec;
        this.home = spec.dir().resolve("connect");
        this.process = new ChildProcess(
                "connect",
                home.resolve("pid"),
                home.resolve("connect.log"),
                spec.dir().toString());
    }

    public ChildProcess process() {
        return process;
    }

    void start(Launcher launcher, Path appJar, boolean detached) {
        Path properties = writeProperties(pluginPath(appJar));
        process.start(
                launcher.javaCommand("-Xmx768m", MAIN, properties.toString()),
                Map.of("REME_REQUEST_SECRET", spec.requestSecret()),
                detached);
    }

    /** Creates or updates (PUT is idempotent) each connector once the REST API answers. */
    void createConnectors(HttpClient http, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String name : CONNECTORS) {
            ObjectNode config = connectorConfig(name);
            HttpRequest put = HttpRequest.newBuilder(URI.create(spec.connectUrl() + "/connectors/" + name + "/config"))
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(config.toString()))
                    .build();
            Waits.until(
                    "Connect to create " + name,
                    deadline,
                    () -> http.send(put, HttpResponse.BodyHandlers.ofString()).statusCode() / 100 == 2,
                    process);
        }
    }

    /** Waits until every connector and each of its tasks is RUNNING. */
    void awaitRunning(HttpClient http, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String name : CONNECTORS) {
            HttpRequest get = HttpRequest.newBuilder(URI.create(spec.connectUrl() + "/connectors/" + name + "/status"))
                    .timeout(Duration.ofSeconds(30))
                    .GET()
                    .build();
            Waits.until(
                    name + " running",
                    deadline,
                    () -> {
                        HttpResponse<String> response = http.send(get, HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() != 200) {
                            return false;
                        }
                        JsonNode status = JSON.readTree(response.body());
                        boolean running = "RUNNING"
                                .equals(status.path("connector").path("state").asText());
                        for (JsonNode task : status.path("tasks")) {
                            running &= "RUNNING".equals(task.path("state").asText());
                        }
                        return running && !status.path("tasks").isEmpty();
                    },
                    process);
        }
    }

    /** The connector's settings with this cluster's working directory and dead-letter replication. */
    ObjectNode connectorConfig(String name) {
        try (InputStream in = ConnectWorker.class.getResourceAsStream("connectors/" + name + ".json")) {
            if (in == null) {
                throw new IllegalStateException("no connector settings for " + name);
            }
            ObjectNode config = (ObjectNode) JSON.readTree(in);
            config.put("workspace.dir", spec.dir().resolve("workspace").toString());
            config.put("errors.deadletterqueue.topic.replication.factor", "3");
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path pluginPath(Path appJar) {
        Path plugins = home.resolve("plugins");
        Path link = plugins.resolve("reme-streams").resolve("reme-streams.jar");
        try {
            Files.createDirectories(link.getParent());
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, appJar.toAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException("could not put the application jar on Connect's plugin path", e);
        }
        return plugins;
    }

    private Path writeProperties(Path plugins) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", spec.bootstrapServers());
        props.put("group.id", GROUP);
        props.put("config.storage.topic", GROUP + "-configs");
        props.put("offset.storage.topic", GROUP + "-offsets");
        props.put("status.storage.topic", GROUP + "-status");
        props.put("config.storage.replication.factor", "3");
        props.put("offset.storage.replication.factor", "3");
        props.put("status.storage.replication.factor", "3");
        // Connect's default of 25 offset partitions is for many connectors; three sinks need few, and every
        // partition is replicated three times, elected after each broker fault and loaded at each start.
        props.put("offset.storage.partitions", "3");
        props.put("status.storage.partitions", "3");
        props.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        props.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        props.put("header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        props.put("plugin.path", plugins.toString());
        // The jar declares its connectors for the service loader; scanning all 340 MB of it would take minutes.
        props.put("plugin.discovery", "service_load");
        props.put("listeners", "http://" + ClusterSpec.HOST + ":" + spec.connectPort());
        props.put("rest.advertised.host.name", ClusterSpec.HOST);
        props.put("rest.advertised.port", Integer.toString(spec.connectPort()));
        // The dialog sink's request.secret is ${env:REME_REQUEST_SECRET}: never stored in the config topic.
        props.put("config.providers", "env");
        props.put("config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
        // The topics are written by an exactly-once application: never act on aborted records.
        props.put("consumer.isolation.level", "read_committed");
        for (String client : List.of("", "consumer.", "producer.", "admin.")) {
            props.put(client + "security.protocol", "SASL_PLAINTEXT");
            props.put(client + "sasl.mechanism", "SCRAM-SHA-512");
            props.put(client + "sasl.jaas.config", spec.scramJaas("reme-connect"));
        }
        return PropertiesFile.write(
                home.resolve("connect-distributed.properties"), "the local cluster's Connect worker", props);
    }
}
