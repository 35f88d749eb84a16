package io.reme.worker;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * A blocking queue with one lane per tenant, served round-robin: a tenant that floods the pipeline
 * waits behind its own requests, never in front of other tenants'. A tenant may also be capped in
 * how many of its items are taken and not yet {@link #done} at once (its share of the workers): its
 * lane is skipped while it is at the cap. Thread-safe.
 */
final class FairQueue<T> {
    private final Map<String, Deque<T>> lanes = new LinkedHashMap<>();
    private final Map<String, Integer> inFlight = new HashMap<>();
    private final ToIntFunction<String> maxInFlight;
    private int size;

    FairQueue() {
        this(tenant -> Integer.MAX_VALUE);
    }

    /** @param maxInFlight a tenant's cap, read at every take (so a changed policy applies at once) */
    FairQueue(ToIntFunction<String> maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    synchronized void put(String tenant, T item) {
        lanes.computeIfAbsent(tenant, t -> new ArrayDeque<>()).addLast(item);
        size++;
        notifyAll();
    }

    /** The next item of the tenant whose turn it is, or null after {@code timeout} with nothing queued. */
    synchronized T poll(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        String tenant;
        while ((tenant = nextTenant()) == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        Deque<T> lane = lanes.remove(tenant);
        T item = lane.pollFirst();
        if (!lane.isEmpty()) {
            // Back of the line: every other tenant with work goes first.
            lanes.put(tenant, lane);
        }
        size--;
        inFlight.merge(tenant, 1, Integer::sum);
        return item;
    }

    /** The first tenant in line that is below its cap, or null. */
    private String nextTenant() {
        for (String tenant : lanes.keySet()) {
            if (inFlight.getOrDefault(tenant, 0) < Math.max(1, maxInFlight.applyAsInt(tenant))) {
                return tenant;
            }
        }
        return null;
    }

    /** An item of the tenant taken by {@link #poll} is finished (answered, or put back). */
    synchronized void done(String tenant) {
        Integer count = inFlight.get(tenant);
        if (count != null) {
            if (count <= 1) {
                inFlight.remove(tenant);
            } else {
                inFlight.put(tenant, count - 1);
            }
            notifyAll();
        }
    }

    synchronized int size() {
        return size;
    }
}
