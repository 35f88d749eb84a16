package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The one poll loop under the diary reader, the LLM request poller and the embedder, on a mock consumer. */
class ConsumerLoopTest {
    private static final TopicPartition P0 = new TopicPartition("in", 0);

    /** A mock consumer whose next commits can be made to fail, and which remembers its commits after closing. */
    private static final class Mock extends MockConsumer<String, String> {
        final List<RuntimeException> commitFailures = new CopyOnWriteArrayList<>();
        final Map<TopicPartition, OffsetAndMetadata> commits = new ConcurrentHashMap<>();

        Mock() {
            super("earliest");
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            if (!commitFailures.isEmpty()) {
                throw commitFailures.remove(0);
            }
            super.commitSync(offsets);
            commits.putAll(offsets);
        }
    }

    /** Records what it is handed and reports each handled record's next offset as done. */
    private static class Recording implements ConsumerLoop.Handler<String, String> {
        final List<String> handled = new CopyOnWriteArrayList<>();
        final CountDownLatch opened = new CountDownLatch(1);
        final Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();

        @Override
        public void open(Consumer<String, String> consumer, Runnable commit) {
            consumer.assign(List.of(P0));
            consumer.seekToBeginning(List.of(P0));
            opened.countDown();
        }

        @Override
        public synchronized void handle(ConsumerRecords<String, String> records) throws Exception {
            for (ConsumerRecord<String, String> record : records) {
                handled.add(record.value());
                done.put(P0, new OffsetAndMetadata(record.offset() + 1));
            }
        }

        @Override
        public synchronized Map<TopicPartition, OffsetAndMetadata> done() {
            Map<TopicPartition, OffsetAndMetadata> now = Map.copyOf(done);
            done.clear();
            return now;
        }
    }

    private static Mock consumer() {
        Mock consumer = new Mock();
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        return consumer;
    }

    private static void add(Mock consumer, long offset, String value) {
        consumer.schedulePollTask(() -> consumer.addRecord(new ConsumerRecord<>("in", 0, offset, "k", value)));
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what)
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(condition::getAsBoolean);
    }

    private static long committed(Mock consumer) {
        OffsetAndMetadata offset = consumer.commits.get(P0);
        return offset == null ? -1 : offset.offset();
    }

    @Test
    void handsEachPollToTheHandlerAndCommitsWhatItReportsDone() throws Exception {
        Mock consumer = consumer();
        add(consumer, 0, "a");
        add(consumer, 1, "b");
        Recording handler = new Recording();
        try (ConsumerLoop<String, String> loop = ConsumerLoop.start("test-loop", consumer, handler)) {
            await("both records handled and committed", () -> committed(consumer) == 2);
            assertEquals(List.of("a", "b"), handler.handled);
            assertTrue(loop.running());
        }
        assertTrue(consumer.closed(), "the loop closes its consumer on the way out");
    }

    @Test
    void closeWakesThePollClosesTheConsumerAndLeavesNothingDoneUncommitted() throws Exception {
        Mock consumer = consumer();
        Recording handler = new Recording();
        ConsumerLoop<String, String> loop = ConsumerLoop.start("test-loop", consumer, handler);
        assertTrue(handler.opened.await(10, TimeUnit.SECONDS));
        // Work finished by another thread (a worker's answer) is committed, at the latest on the way out.
        synchronized (handler) {
            handler.done.put(P0, new OffsetAndMetadata(7));
        }
        loop.close();
        assertFalse(loop.running());
        assertTrue(loop.failure().isEmpty(), "a stop is not a failure");
        assertTrue(consumer.closed());
        assertEquals(7, committed(consumer));
    }

    @Test
    void aCommitTheGroupRefusesIsLoggedAndTheLoopGoesOn() throws Exception {
        Mock consumer = consumer();
        consumer.commitFailures.add(new CommitFailedException("the group rebalanced"));
        add(consumer, 0, "a");
        Recording handler = new Recording();
        try (ConsumerLoop<String, String> loop = ConsumerLoop.start("test-loop", consumer, handler)) {
            await("the first record handled", () -> handler.handled.size() == 1);
            add(consumer, 1, "b");
            await("the next record committed", () -> committed(consumer) == 2);
            assertTrue(loop.failure().isEmpty());
        }
    }

    @Test
    void aFatalErrorFromKafkaEndsTheLoopAndIsKept() throws Exception {
        Mock consumer = consumer();
        TopicAuthorizationException denied = new TopicAuthorizationException(Set.of("in"));
        Recording handler = new Recording();
        ConsumerLoop<String, String> loop = ConsumerLoop.start("test-loop", consumer, handler);
        assertTrue(handler.opened.await(10, TimeUnit.SECONDS));
        consumer.setPollException(denied);
        await("the loop ended", () -> !loop.running());
        assertEquals(denied, loop.failure().orElseThrow());
        assertTrue(consumer.closed());
        loop.close();
    }

    @Test
    void aHandlerFailureEndsTheLoopWithoutCommittingTheBatch() throws Exception {
        Mock consumer = consumer();
        add(consumer, 0, "a");
        add(consumer, 1, "poison");
        Recording handler = new Recording() {
            @Override
            public synchronized void handle(ConsumerRecords<String, String> records) throws Exception {
                for (ConsumerRecord<String, String> record : records) {
                    if (record.value().equals("poison")) {
                        throw new IllegalStateException("cannot write memories");
                    }
                }
                super.handle(records);
            }
        };
        ConsumerLoop<String, String> loop = ConsumerLoop.start("test-loop", consumer, handler);
        await("the loop ended", () -> !loop.running());
        assertInstanceOf(IllegalStateException.class, loop.failure().orElseThrow());
        assertEquals(1, committed(consumer), "only the record handled before the failure");
        loop.close();
    }

    @Test
    void anotherThreadCanStopTheLoop() throws Exception {
        Mock consumer = consumer();
        Recording handler = new Recording();
        ConsumerLoop<String, String> loop = ConsumerLoop.start("test-loop", consumer, handler);
        assertTrue(handler.opened.await(10, TimeUnit.SECONDS));
        Thread stopper = new Thread(loop::stop);
        stopper.start();
        stopper.join();
        await("the loop ended", () -> !loop.running());
        assertTrue(loop.failure().isEmpty());
        loop.close();
    }
}
