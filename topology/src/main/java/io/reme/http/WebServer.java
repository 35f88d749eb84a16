package io.reme.http;

import java.io.IOException;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Jetty server on one address with {@link HttpSettings}' limits. Jetty reads and writes
 * connections without a thread per socket, so idle or half-sent connections hold no worker and are
 * closed after the idle timeout. Requests run on virtual threads; Jetty's own jobs (selecting, accepting)
 * on a pool of at most {@link HttpSettings#maxThreads()} platform threads. Lifecycle:
 * {@link #bind} (the port is known from then on), {@link #start} once with the handler, {@link #close}.
 */
public final class WebServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebServer.class);

    private final Server server;
    private final ServerConnector connector;
    private final HttpSettings settings;
    private final String name;

    private WebServer(Server server, ServerConnector connector, HttpSettings settings, String name) {
        this.server = server;
        this.connector = connector;
        this.settings = settings;
        this.name = name;
    }

    /**
     * Binds the listening socket without serving yet: the API's port must be known before Kafka
     * Streams starts, since it is this instance's address for interactive-query routing.
     *
     * @param name names the threads ({@code name-N}) and the log lines
     */
    public static WebServer bind(String name, String host, int port, HttpSettings settings) throws IOException {
        // Jetty's own jobs (selecting, accepting) go through this queue as well: it stays unbounded, as
        // Jetty asks; the API bounds the requests it admits itself (HttpSettings#maxQueued).
        QueuedThreadPool pool = new QueuedThreadPool(settings.maxThreads(), Math.min(4, settings.maxThreads()));
        pool.setName(name);
        pool.setDaemon(true);
        if (VirtualThreads.areSupported()) {
            pool.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor(name + "-v"));
        }
        // Daemon threads only (the pool's above, the idle-timeout scheduler's here): a server left open
        // must never keep the JVM up after the application has stopped.
        Server server = new Server(pool, new ScheduledExecutorScheduler(name + "-scheduler", true), null);
        server.setErrorHandler(new JsonErrorHandler());
        server.setStopTimeout(2_000);

        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(settings.maxHeaderBytes());
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        // Path parameters are checked by the handlers (SafeId) on the decoded, not normalised, path, as
        // before; Jetty's default would answer encoded dots and slashes with its own 400 instead.
        http.setUriCompliance(UriCompliance.LEGACY);
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(settings.idleTimeout().toMillis());
        connector.setAcceptQueueSize(128);
        server.addConnector(connector);
        connector.open();
        return new WebServer(server, connector, settings, name);
    }

    /**
     * Serves {@code handler} (the API's router; a servlet context or static files can sit beside it
     * later, in a {@code ContextHandlerCollection}). Bodies over the limit are refused with 413, by
     * their Content-Length before they are read, or as soon as a chunked one passes the limit.
     */
    public void start(Handler handler) throws IOException {
        server.setHandler(new SizeLimitHandler(settings.maxBodyBytes(), -1));
        ((SizeLimitHandler) server.getHandler()).setHandler(handler);
        try {
            server.start();
        } catch (Exception e) {
            throw new IOException("cannot start the " + name + " server: " + e.getMessage(), e);
        }
        LOG.info(
                "http server started name={} address={}:{} virtualThreads={} idleTimeoutMs={}",
                name,
                host(),
                port(),
                VirtualThreads.areSupported(),
                settings.idleTimeout().toMillis());
    }

    public int port() {
        return connector.getLocalPort();
    }

    public String host() {
        return connector.getHost();
    }

    public HttpSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        try {
            if (!server.isStarted()) {
                connector.close();
            }
            server.stop();
        } catch (Exception e) {
            LOG.warn("http server did not stop cleanly name={} error={}", name, e.toString());
        }
    }
}
