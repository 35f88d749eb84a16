package io.reme.admin;

import io.reme.dlq.DeadLetterHeaders;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends dead-lettered LLM requests again: reads {@code dlq} up to where it ended when the replay
 * started, picks the records whose reason matches and whose value is an {@link LlmRequest} (of the
 * wanted kinds and tenant), and produces each, key and value unchanged, to {@code llm.requests}. The
 * consumer's group remembers how far it read (committed once everything picked was acknowledged), so
 * a second replay does not send the same requests again. A request whose session has moved on is
 * still handled by a worker (a diary update, a memory extraction, whose writes are what a replay is
 * for); the session processor drops its result as one it no longer waits for.
 *
 * <p>COMPACT requests are never replayed: a failed compaction is planned again by its session, and the
 * result of a replayed one would be dropped, its summary never applied. They are counted as skipped.
 */
public final class DlqReplay {
    private static final Logger LOG = LoggerFactory.getLogger(DlqReplay.class);

    /** Which dead letters to send again. An empty kind set means DIARY and EXTRACT; a null tenant any. */
    public record Filter(String reason, Set<LlmKind> kinds, String tenant, boolean dryRun) {
        public Filter {
            kinds = Set.copyOf(kinds);
            if (kinds.contains(LlmKind.COMPACT)) {
                throw new IllegalArgumentException("COMPACT requests are not replayed: the session plans a failed "
                        + "compaction again, and would drop a replayed one's summary");
            }
        }

        /** Of the reason and tenant: a COMPACT request matches too, to be counted as skipped. */
        boolean matches(String recordReason, LlmRequest request) {
            return reason.equals(recordReason)
                    && (kinds.isEmpty() || request.kind() == LlmKind.COMPACT || kinds.contains(request.kind()))
                    && (tenant == null || tenant.equals(request.dialog().tenant()));
        }
    }

    /**
     * What one replay did: records read, requests sent again (or that would be, on a dry run), and
     * COMPACT requests of the reason and tenant left alone.
     */
    public record Summary(long read, long replayed, long skippedCompactions) {}

    private DlqReplay() {}

    /**
     * Replays from {@code dlqTopic} into {@code requestsTopic}.
     *
     * @param consumer a consumer with a group id, assigned nothing yet; not closed here
     * @param producer not closed here
     * @param report told of each request picked, e.g. to print it
     * @throws InterruptedException while waiting for the broker to acknowledge the requests
     */
    public static Summary run(
            org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
            Producer<byte[], byte[]> producer,
            String dlqTopic,
            String requestsTopic,
            Filter filter,
            Consumer<LlmRequest> report)
            throws InterruptedException {
        List<TopicPartition> partitions = consumer.partitionsFor(dlqTopic).stream()
                .map(info -> new TopicPartition(dlqTopic, info.partition()))
                .toList();
        consumer.assign(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        long read = 0;
        long replayed = 0;
        long skipped = 0;
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        while (!reachedEnd(consumer, end)) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                if (record.offset() >= end.get(partition)) {
                    continue;
                }
                read++;
                done.put(partition, new OffsetAndMetadata(record.offset() + 1));
                LlmRequest request = request(record.value());
                if (request == null
                        || !filter.matches(
                                DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.REASON), request)) {
                    continue;
                }
                if (request.kind() == LlmKind.COMPACT) {
                    skipped++;
                    continue;
                }
                replayed++;
                report.accept(request);
                if (!filter.dryRun()) {
                    sends.add(producer.send(new ProducerRecord<>(requestsTopic, record.key(), record.value())));
                }
            }
        }
        if (!filter.dryRun()) {
            producer.flush();
            for (Future<RecordMetadata> send : sends) {
                try {
                    send.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("cannot produce to " + requestsTopic + ": " + e.getCause(), e);
                }
            }
            if (!done.isEmpty()) {
                consumer.commitSync(done);
            }
        }
        LOG.info(
                "dead letters replayed read={} replayed={} skippedCompactions={} reason={} dryRun={}",
                read,
                replayed,
                skipped,
                filter.reason(),
                filter.dryRun());
        return new Summary(read, replayed, skipped);
    }

    private static boolean reachedEnd(
            org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            if (consumer.position(partition.getKey()) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** The dead letter's value as a request, or null when it is something else (a message, a memory). */
    private static LlmRequest request(byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return Json.MAPPER.readValue(value, LlmRequest.class);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
