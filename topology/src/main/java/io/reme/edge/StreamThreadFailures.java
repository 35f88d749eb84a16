package io.reme.edge;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Streams uncaught exception handler, and the memory of what it handled. A failed stream thread is
 * replaced, so a passing fault (a broker away for a while) heals by itself; but a thread that dies on
 * the same record again and again serves nothing on its partitions while the client still says
 * RUNNING. So each failure is remembered for a window, and {@link #failing()} is true while the
 * failures within it reach the limit; readiness reports that. Thread-safe: stream threads record,
 * HTTP threads ask.
 */
public final class StreamThreadFailures implements StreamsUncaughtExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(StreamThreadFailures.class);

    private final int limit;
    private final Duration window;
    private final Clock clock;
    private final Deque<Instant> failures = new ArrayDeque<>();
    private String lastError;

    /**
     * @param limit failures within {@code window} from which the instance counts as not ready
     * @param window how long a failure counts
     */
    public StreamThreadFailures(int limit, Duration window, Clock clock) {
        if (limit <= 0 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("limit and window must be positive");
        }
        this.limit = limit;
        this.window = window;
        this.clock = clock;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        int recent;
        synchronized (this) {
            failures.addLast(clock.instant());
            lastError = exception.toString();
            recent = prune();
        }
        LOG.error(
                "stream thread failed; replacing it failures={} limit={} window={}", recent, limit, window, exception);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** Failures within the window. */
    public synchronized int recent() {
        return prune();
    }

    /** Whether threads failed at least {@code limit} times within the window. */
    public boolean failing() {
        return recent() >= limit;
    }

    /** The last failure, or null if none is within the window. */
    public synchronized String lastError() {
        return prune() == 0 ? null : lastError;
    }

    private int prune() {
        Instant oldest = clock.instant().minus(window);
        while (!failures.isEmpty() && failures.peekFirst().isBefore(oldest)) {
            failures.removeFirst();
        }
        return failures.size();
    }
}
