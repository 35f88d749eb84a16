package io.reme.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka consumer polled on a thread of its own: poll, hand the records to the {@link Handler}, commit the
 * offsets it reports done; repeat until {@link #stop}. The loop owns the consumer from {@link #start} on: only its
 * thread uses it, and it closes it on the way out.
 *
 * <p>Lifecycle: {@link #start} runs {@link Handler#open} and then the polls on a new daemon thread;
 * {@link #stop} (any thread) wakes the poll up and lets the thread end; {@link #close} stops and waits for it.
 * On the way out the handler's done offsets are committed once more, then the consumer is closed.
 *
 * <p>Failures: a commit refused because the group has moved on ({@link CommitFailedException},
 * {@link RebalanceInProgressException}) or not answered in time ({@link TimeoutException}) is logged and the loop
 * goes on: the records are delivered again, which every handler here can take (at-least-once). Anything else thrown
 * by a poll, the handler or a commit (Kafka's fatal errors among them: authorization, a fenced or unknown member)
 * ends the loop: never polled past, logged at ERROR with the loop's name and kept as {@link #failure()}. A wakeup
 * while stopping, or an interrupt, is a normal end.
 */
final class ConsumerLoop<K, V> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerLoop.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration CLOSE = Duration.ofSeconds(5);
    private static final Duration JOIN = Duration.ofSeconds(10);

    /** What a loop does with its consumer. Every method runs on the loop's thread. */
    interface Handler<K, V> {
        /**
         * Before the first poll: subscribe or assign, seek, wait for what the handler needs.
         *
         * @param commit commits {@link #done} now, under the loop's failure rules (for a rebalance listener)
         */
        void open(Consumer<K, V> consumer, Runnable commit) throws Exception;

        /** One poll's records, empty when the poll found none (a handler may use that turn, e.g. to resume). */
        void handle(ConsumerRecords<K, V> records) throws Exception;

        /** The offsets to commit after this turn (next offset to read, per partition); empty: nothing new. */
        Map<TopicPartition, OffsetAndMetadata> done();
    }

    private final String name;
    private final Consumer<K, V> consumer;
    private final Handler<K, V> handler;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    private ConsumerLoop(String name, Consumer<K, V> consumer, Handler<K, V> handler) {
        this.name = Objects.requireNonNull(name, "name");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /** Starts polling {@code consumer} on a thread named {@code name}. */
    static <K, V> ConsumerLoop<K, V> start(String name, Consumer<K, V> consumer, Handler<K, V> handler) {
        ConsumerLoop<K, V> loop = new ConsumerLoop<>(name, consumer, handler);
        loop.thread.start();
        return loop;
    }

    private void run() {
        try {
            handler.open(consumer, this::commit);
            while (running) {
                handler.handle(consumer.poll(POLL));
                commit();
            }
        } catch (WakeupException e) {
            if (running) {
                failed(e);
            }
        } catch (InterruptedException e) {
            running = false;
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failed(e);
        } finally {
            // The handler reports only offsets whose work is finished, so they are committed even after a failure.
            try {
                commit();
            } catch (RuntimeException e) {
                LOG.warn("last commit failed loop={} error={}", name, e.toString());
            }
            try {
                consumer.close(CloseOptions.timeout(CLOSE));
            } catch (RuntimeException e) {
                LOG.warn("consumer close failed loop={} error={}", name, e.toString());
            }
        }
    }

    private void commit() {
        Map<TopicPartition, OffsetAndMetadata> offsets = handler.done();
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets);
        } catch (CommitFailedException | RebalanceInProgressException | TimeoutException e) {
            LOG.warn("offset commit failed, records may come again loop={} error={}", name, e.toString());
        }
    }

    private void failed(Exception e) {
        failure = e;
        running = false;
        LOG.error("consumer loop stopped by a failure loop={}", name, e);
    }

    /** The failure that ended the loop, if one did. */
    Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    boolean running() {
        return running && thread.isAlive();
    }

    /** Ends the loop without waiting: the poll under way is woken up. Safe from any thread, more than once. */
    void stop() {
        running = false;
        consumer.wakeup();
    }

    /** Stops the loop and waits (up to 10 s) for its thread, which commits and closes the consumer. */
    @Override
    public void close() {
        stop();
        try {
            thread.join(JOIN);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
