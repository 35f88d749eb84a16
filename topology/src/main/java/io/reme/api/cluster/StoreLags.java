package io.reme.api.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far this instance's copy of each store partition is behind its changelog. A read that does not
 * come from a running active task (a standby's, or an active task's while its thread rebalances) is
 * served only from a copy at most {@link #MAX_LAG} records behind: a copy being rebuilt from the
 * changelog after a crash would answer a session's window with messages missing.
 *
 * <p>Streams asks the brokers for end offsets to tell the lags, which may take long while a broker
 * fails over: so a read never waits for it. It reads the last answer, asked in the background every
 * {@link #REFRESH} (and when a read finds it older); an answer older than {@link #EXPIRY} counts as
 * unknown, and unknown is not fresh.
 */
public final class StoreLags {
    static final long MAX_LAG = 1_000;
    static final Duration REFRESH = Duration.ofSeconds(1);
    static final Duration EXPIRY = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(StoreLags.class);

    /** The lags (records behind, by store and partition) and when they were asked for. */
    private record Known(Map<String, Map<Integer, Long>> lags, long askedAt) {}

    private final Supplier<Map<String, Map<Integer, Long>>> lags;
    private final LongSupplier nanos;
    private final AtomicBoolean asking = new AtomicBoolean();
    private volatile Known known;
    /**
     * Whether the application has run since it started: before, its active tasks may be rebuilding their
     * stores from the changelog (exactly-once wipes them after a crash), and a copy's lag is not trusted.
     */
    private volatile boolean trusted;

    /**
     * Lags asked of the application every {@link #REFRESH} while it runs, so a read that needs them after
     * a quiet spell (the first after an instance died) finds them known.
     */
    public StoreLags(StreamsStores streams) {
        this(() -> recordsBehind(streams.allLocalStorePartitionLags()), System::nanoTime);
        trusted = false;
        Thread.ofVirtual().name("store-lags-refresh").start(() -> refreshWhileRunning(streams));
    }

    private void refreshWhileRunning(StreamsStores streams) {
        try {
            while (true) {
                Thread.sleep(REFRESH.toMillis());
                KafkaStreams.State state = streams.state();
                if (state.isShuttingDown() || state == KafkaStreams.State.ERROR) {
                    return;
                }
                if (state == KafkaStreams.State.RUNNING) {
                    trusted = true;
                }
                if (trusted && state.isRunningOrRebalancing() && asking.compareAndSet(false, true)) {
                    ask();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @param lags records behind, by store and partition, as this instance's copies are now */
    StoreLags(Supplier<Map<String, Map<Integer, Long>>> lags, LongSupplier nanos) {
        this.lags = lags;
        this.nanos = nanos;
        this.trusted = true;
    }

    /** Whether this instance's copy of the store's partition is known to be at most {@link #MAX_LAG} behind. */
    public boolean fresh(String store, int partition) {
        if (!trusted) {
            return false;
        }
        Known now = known;
        long age = now == null ? Long.MAX_VALUE : nanos.getAsLong() - now.askedAt();
        if (age >= REFRESH.toNanos() && asking.compareAndSet(false, true)) {
            Thread.ofVirtual().name("store-lags").start(this::ask);
        }
        if (now == null || age >= EXPIRY.toNanos()) {
            return false;
        }
        Long behind = now.lags().getOrDefault(store, Map.of()).get(partition);
        return behind != null && behind <= MAX_LAG;
    }

    private static Map<String, Map<Integer, Long>> recordsBehind(Map<String, Map<Integer, LagInfo>> lags) {
        Map<String, Map<Integer, Long>> behind = new HashMap<>();
        lags.forEach((store, partitions) -> {
            Map<Integer, Long> byPartition = new HashMap<>();
            partitions.forEach((partition, lag) -> byPartition.put(partition, lag.offsetLag()));
            behind.put(store, byPartition);
        });
        return behind;
    }

    private void ask() {
        long askedAt = nanos.getAsLong();
        try {
            known = new Known(lags.get(), askedAt);
        } catch (RuntimeException e) {
            LOG.warn("store lags not known error={}", e.toString());
        } finally {
            asking.set(false);
        }
    }
}
