package io.reme.http;

import io.reme.config.AppConfig;
import java.time.Duration;
import java.util.Map;

/**
 * The limits of one HTTP server.
 *
 * @param idleTimeout how long a connection may stay silent (idle between requests, or a request
 *     half sent) before it is closed
 * @param maxThreads the server's own platform threads (requests run on virtual threads)
 * @param maxQueued requests admitted beyond {@code maxThreads} to wait for a worker; beyond them a
 *     request is answered 503 at once (health checks excepted)
 * @param maxHeaderBytes the request line and headers together
 * @param maxBodyBytes a request body; the handlers refuse larger ones with 413 before reading them
 */
public record HttpSettings(Duration idleTimeout, int maxThreads, int maxQueued, int maxHeaderBytes, int maxBodyBytes) {
    /** The defaults of {@link AppConfig}'s {@code reme.http.*} options. */
    public static final HttpSettings DEFAULT = from(AppConfig.of(Map.of()));

    public HttpSettings {
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive");
        }
        if (maxThreads < 8 || maxQueued < 1 || maxHeaderBytes < 1024 || maxBodyBytes < 1) {
            throw new IllegalArgumentException("HTTP limits out of range: " + maxThreads + " threads, " + maxQueued
                    + " queued, " + maxHeaderBytes + " header bytes, " + maxBodyBytes + " body bytes");
        }
    }

    public static HttpSettings from(AppConfig config) {
        return new HttpSettings(
                config.get(AppConfig.HTTP_IDLE_TIMEOUT),
                config.get(AppConfig.HTTP_MAX_THREADS),
                config.get(AppConfig.HTTP_MAX_QUEUED),
                config.get(AppConfig.HTTP_MAX_HEADER_BYTES),
                config.get(AppConfig.HTTP_MAX_BODY_BYTES));
    }

    public HttpSettings withIdleTimeout(Duration timeout) {
        return new HttpSettings(timeout, maxThreads, maxQueued, maxHeaderBytes, maxBodyBytes);
    }
}
