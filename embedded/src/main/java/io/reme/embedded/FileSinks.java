package io.reme.embedded;

import io.reme.local.FileSinkSettings;
import io.reme.retry.Poll;
import io.reme.sink.DialogSinkConnector;
import io.reme.sink.DiarySinkConnector;
import io.reme.sink.ToolResultSinkConnector;
import io.reme.topic.Topics;
import io.reme.workspace.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;
import org.apache.kafka.connect.util.FutureCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Connect worker in this JVM running the three file sink connectors: the embedded default's
 * way to keep the working directory, and the same connectors and settings a Connect cluster would
 * run ({@link #connectorConfigs}). Start with {@link #start}; {@link #close} stops the worker, which
 * commits the offsets of what was written.
 */
public final class FileSinks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileSinks.class);
    private static final long START_TIMEOUT_SECONDS = 60;
    /** How long {@link #close} waits for the worker; its tasks stop gracefully within 5 s by default. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    /** The name under which {@link Connect#start} registers its own JVM shutdown hook. */
    private static final String CONNECT_SHUTDOWN_HOOK = "connect-shutdown-hook";

    private final Connect<StandaloneHerder> connect;
    private final Runnable stopWorker;
    private final Duration stopTimeout;

    private FileSinks(Connect<StandaloneHerder> connect) {
        this(
                connect,
                () -> {
                    connect.stop();
                    connect.awaitStop();
                },
                STOP_TIMEOUT);
    }

    FileSinks(Connect<StandaloneHerder> connect, Runnable stopWorker, Duration stopTimeout) {
        this.connect = connect;
        this.stopWorker = stopWorker;
        this.stopTimeout = stopTimeout;
    }

    /**
     * Starts the worker and its connectors and returns once every task runs.
     *
     * @param clientProps bootstrap servers and any client settings (security), given to the worker
     * @param dataDir where the worker keeps its own small state ({@code connect/})
     */
    public static FileSinks start(
            Map<String, Object> clientProps,
            Path dataDir,
            FileSinkSettings settings,
            FileSinkSettings.Membership membership) {
        Map<String, String> worker = workerProps(clientProps, dataDir, membership);
        try {
            // The offsets file Connect creates keeps the process umask; the folder keeps others out.
            PrivateFiles.tighten(dataDir.resolve("connect"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the Connect offsets folder", e);
        }
        Connect<StandaloneHerder> connect = startWithoutShutdownHook(worker);
        FileSinks sinks = new FileSinks(connect);
        try {
            for (Map.Entry<String, Map<String, String>> connector :
                    connectorConfigs(settings).entrySet()) {
                FutureCallback<Herder.Created<ConnectorInfo>> created = new FutureCallback<>();
                connect.herder().putConnectorConfig(connector.getKey(), connector.getValue(), true, created);
                created.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            sinks.awaitRunning(connectorConfigs(settings).keySet());
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            sinks.close();
            throw new IllegalStateException("the file sinks did not start: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            sinks.close();
            throw new IllegalStateException("interrupted while starting the file sinks", e);
        }
        LOG.info(
                "file sinks running workspace={} connectors={}",
                settings.workspace(),
                connectorConfigs(settings).keySet());
        return sinks;
    }

    /**
     * Starts the worker without the JVM shutdown hook Connect registers for itself. That hook stops
     * the worker on its own thread while the application's hook closes everything in order: the two
     * raced (the application's {@code connect.stop()} returned at once because the hook had begun, so
     * the broker was closed under a stopping worker), and the hook could stay parked in the REST
     * server's stop with the JVM unable to exit. Here only {@link #close} stops the worker, bounded.
     * Connect registers the hook through Kafka's {@code Exit}, whose hook adder is swapped for the
     * start alone; any other hook registered meanwhile is added as Kafka would add it.
     */
    private static Connect<StandaloneHerder> startWithoutShutdownHook(Map<String, String> worker) {
        synchronized (FileSinks.class) {
            Exit.setShutdownHookAdder((name, hook) -> {
                if (CONNECT_SHUTDOWN_HOOK.equals(name)) {
                    LOG.debug("connect's own shutdown hook not registered; close stops the worker");
                } else {
                    Runtime.getRuntime().addShutdownHook(new Thread(hook, name));
                }
            });
            try {
                return new ConnectStandalone().startConnect(worker);
            } finally {
                Exit.resetShutdownHookAdder();
            }
        }
    }

    /**
     * The worker: converters hand the connectors raw bytes, only committed records are read (the
     * pipeline writes with transactions), plugins are found through {@code META-INF/services}
     * (no scan of the class path), REST listens on a free loopback port, the consumers keep their place in
     * their groups across a restart ({@link FileSinkSettings.Membership}).
     */
    static Map<String, String> workerProps(
            Map<String, Object> clientProps, Path dataDir, FileSinkSettings.Membership membership) {
        Map<String, String> props = new HashMap<>();
        clientProps.forEach((name, value) -> {
            props.put(name, String.valueOf(value));
            props.put("consumer." + name, String.valueOf(value));
            props.put("producer." + name, String.valueOf(value));
            props.put("admin." + name, String.valueOf(value));
        });
        props.put("key.converter", ByteArrayConverter.class.getName());
        props.put("value.converter", ByteArrayConverter.class.getName());
        props.put("consumer.isolation.level", "read_committed");
        long sessionMs = membership.sessionTimeout().toMillis();
        props.put("consumer.session.timeout.ms", Long.toString(sessionMs));
        props.put("consumer.heartbeat.interval.ms", Long.toString(sessionMs / 3));
        if (!membership.instanceId().isEmpty()) {
            // One id for the three connectors' consumers: each is the only task of its own group.
            props.put("consumer.group.instance.id", membership.instanceId() + "-files");
        }
        props.put(
                "offset.storage.file.filename",
                dataDir.resolve("connect").resolve("offsets").toString());
        props.put("offset.flush.interval.ms", "1000");
        props.put("plugin.discovery", "service_load");
        props.put("listeners", "http://127.0.0.1:0");
        return props;
    }

    /**
     * Each connector's configuration by connector name (prefixed with {@code name}, which also names
     * its consumer group {@code connect-<connector>}). Rejected records go to the pipeline's
     * {@code dlq} topic with Connect's error headers.
     */
    public static Map<String, Map<String, String>> connectorConfigs(FileSinkSettings settings) {
        Topics topics = settings.topics();
        Map<String, Map<String, String>> connectors = new LinkedHashMap<>();
        String dialog = settings.name() + "-dialog-files";
        Map<String, String> dialogSink = connector(dialog, DialogSinkConnector.class, topics.dialog(), settings);
        dialogSink.put("request.secret", settings.requestSecret());
        connectors.put(dialog, dialogSink);
        String diary = settings.name() + "-diary-files";
        connectors.put(diary, connector(diary, DiarySinkConnector.class, topics.diary(), settings));
        String tools = settings.name() + "-tool-result-files";
        Map<String, String> toolResults =
                connector(tools, ToolResultSinkConnector.class, topics.toolResults(), settings);
        toolResults.put(
                "retention.ms", Long.toString(settings.toolResultRetention().toMillis()));
        connectors.put(tools, toolResults);
        return connectors;
    }

    private static Map<String, String> connector(String name, Class<?> type, String topic, FileSinkSettings settings) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("name", name);
        config.put("connector.class", type.getName());
        config.put("topics", topic);
        config.put("tasks.max", "1");
        config.put("workspace.dir", settings.workspace().toAbsolutePath().toString());
        config.put("record.max.bytes", Integer.toString(settings.recordMaxBytes()));
        // Header values as the pipeline wrote them (the erasure marker's signature), not parsed as Connect values.
        config.put("header.converter", ByteArrayConverter.class.getName());
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", settings.topics().dlq());
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        config.put("errors.log.enable", "true");
        return config;
    }

    private void awaitRunning(Iterable<String> names) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        for (String name : names) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (!Poll.until(left, Duration.ofMillis(50), () -> running(name))) {
                throw new TimeoutException("connector " + name + " is not running: " + status(name));
            }
        }
    }

    private boolean running(String name) {
        ConnectorStateInfo status = status(name);
        return status != null
                && "RUNNING".equals(status.connector().state())
                && !status.tasks().isEmpty()
                && status.tasks().stream().allMatch(t -> "RUNNING".equals(t.state()));
    }

    private ConnectorStateInfo status(String name) {
        try {
            return connect.herder().connectorStatus(name);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Stops the worker, which commits the offsets of what was written, waiting at most
     * {@link #STOP_TIMEOUT}. A worker that takes longer is left to its (daemon) thread and shutdown
     * goes on: the sinks are idempotent, so what it had not committed is redelivered and skipped.
     */
    @Override
    public void close() {
        long startedAt = System.nanoTime();
        Thread stopper = new Thread(stopWorker, "reme-connect-stop");
        stopper.setDaemon(true);
        stopper.start();
        try {
            stopper.join(stopTimeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt);
        if (stopper.isAlive()) {
            LOG.warn("file sinks did not stop in time; going on without them timeoutMs={}", stopTimeout.toMillis());
        } else {
            LOG.info("file sinks stopped elapsedMs={}", elapsedMs);
        }
    }
}
