package io.reme.worker;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A blocking queue with one lane per tenant, served round-robin: a tenant that floods the pipeline
 * waits behind its own requests, never in front of other tenants'. Thread-safe.
 */
final class FairQueue<T> {
    private final Map<String, Deque<T>> lanes = new LinkedHashMap<>();
    private int size;

    synchronized void put(String tenant, T item) {
        lanes.computeIfAbsent(tenant, t -> new ArrayDeque<>()).addLast(item);
        size++;
        notifyAll();
    }

    /** The next item of the tenant whose turn it is, or null after {@code timeout} with nothing queued. */
    synchronized T poll(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (size == 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        var first = lanes.entrySet().iterator().next();
        String tenant = first.getKey();
        Deque<T> lane = first.getValue();
        T item = lane.pollFirst();
        lanes.remove(tenant);
        if (!lane.isEmpty()) {
            // Back of the line: every other tenant with work goes first.
            lanes.put(tenant, lane);
        }
        size--;
        return item;
    }

    synchronized int size() {
        return size;
    }
}
