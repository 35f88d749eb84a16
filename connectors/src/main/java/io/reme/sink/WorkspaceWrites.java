package io.reme.sink;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the file sinks of this process can write the workspace: the tasks whose last write failed (a full or
 * read-only disk), since when, and how many writes failed in all. Read by the metrics and {@code /v1/pipeline} of an
 * application that runs the sinks in its own process (the embedded default); a Connect worker elsewhere shows the
 * same in its log, said once when it starts and once when it ends. Thread-safe.
 */
public final class WorkspaceWrites {
    private static final Map<String, Instant> FAILING = new ConcurrentHashMap<>();
    private static final AtomicLong FAILURES = new AtomicLong();

    private WorkspaceWrites() {}

    /** What the sinks of this process say now. */
    public record Snapshot(int failingTasks, Instant failingSince, long failures) {}

    static void failed(String task, Instant at) {
        FAILURES.incrementAndGet();
        FAILING.putIfAbsent(task, at);
    }

    static void recovered(String task) {
        FAILING.remove(task);
    }

    public static Snapshot snapshot() {
        Instant since = FAILING.values().stream().min(Instant::compareTo).orElse(null);
        return new Snapshot(FAILING.size(), since, FAILURES.get());
    }
}
