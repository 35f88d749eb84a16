package io.reme.http;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the requests handed to workers, running or waiting for one: {@link #enter} before a
 * request is handed over, {@link #leave} once it is answered. Jetty's own job queue cannot be
 * bounded (its selector and accept jobs share it), so the bound on waiting requests lives here.
 * Thread-safe.
 */
public final class AdmissionGate {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionGate.class);

    private final int limit;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicBoolean busy = new AtomicBoolean();

    public AdmissionGate(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive (got " + limit + ")");
        }
        this.limit = limit;
    }

    /** For {@link HttpSettings}: as many requests as threads run, and {@code maxQueued} more wait. */
    public static AdmissionGate of(HttpSettings settings) {
        return new AdmissionGate(settings.maxThreads() + settings.maxQueued());
    }

    /**
     * Lets a request in unless {@code limit} are inside; an {@code exempt} one (a health check, so a
     * busy instance is not taken for a dead one) always enters. Every entry is matched by a {@link #leave}.
     */
    public boolean enter(boolean exempt) {
        if (inside.incrementAndGet() <= limit || exempt) {
            return true;
        }
        inside.decrementAndGet();
        if (busy.compareAndSet(false, true)) {
            LOG.warn("http server busy, refusing requests with 503 limit={}", limit);
        }
        return false;
    }

    public void leave() {
        if (inside.decrementAndGet() < limit / 2 && busy.compareAndSet(true, false)) {
            LOG.info("http server no longer busy limit={}", limit);
        }
    }

    /** Requests inside now. */
    public int inside() {
        return inside.get();
    }
}
