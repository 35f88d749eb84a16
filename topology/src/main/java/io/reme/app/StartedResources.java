package io.reme.app;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start has opened so far, closed in the reverse order: a start that fails half-way closes
 * exactly what it opened ({@link #closeAfter}), and a running instance closes the same list on stop
 * ({@link #close}). Each resource is closed once; a close that fails is logged (or kept as a suppressed
 * exception of the start's failure) and does not stop the others. Not thread-safe: the owner's start
 * and close are.
 */
final class StartedResources implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StartedResources.class);

    /** How one resource is closed. */
    @FunctionalInterface
    interface Closer {
        void close() throws Exception;
    }

    private record Entry(String name, Closer closer) {}

    private final Deque<Entry> opened = new ArrayDeque<>();

    /** Registers {@code resource} to be closed with {@code close()}; null (not started) is let through. */
    <T extends AutoCloseable> T add(String name, T resource) {
        if (resource != null) {
            opened.push(new Entry(name, resource::close));
        }
        return resource;
    }

    /** Registers {@code resource} to be closed by {@code closer}, for resources whose plain close is not the right one. */
    <T> T add(String name, T resource, Closer closer) {
        if (resource != null) {
            opened.push(new Entry(name, closer));
        }
        return resource;
    }

    /** The names of what is open, most recent first. */
    List<String> names() {
        return opened.stream().map(Entry::name).toList();
    }

    /** Closes everything after a failed start; close failures are added to {@code failure} as suppressed. */
    <E extends Throwable> E closeAfter(E failure) {
        closeAll((entry, e) -> failure.addSuppressed(e));
        return failure;
    }

    /** Closes everything, the most recently opened first; failures are logged. */
    @Override
    public void close() {
        closeAll((entry, e) -> LOG.warn("close failed resource={} error={}", entry.name(), e.toString()));
    }

    private void closeAll(BiConsumer<Entry, Exception> onFailure) {
        while (!opened.isEmpty()) {
            Entry entry = opened.pop();
            try {
                entry.closer().close();
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                onFailure.accept(entry, e);
            }
        }
    }
}
