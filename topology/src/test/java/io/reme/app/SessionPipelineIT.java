package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.topic.Topics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline on a real broker: 2,000 generated messages over six sessions of tenant acme
 * flow through the session processor while a test worker answers every compaction (failing some
 * on purpose); afterwards each message is in exactly one place and every number the API serves
 * checks out.
 */
@Tag("integration")
class SessionPipelineIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(SessionPipelineIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();

    @Test
    void everyMessageIsArchivedOrLiveExactlyOnceWithExactTokensAndTheLatestSummary() throws Exception {
        Map<String, Integer> sizes = new LinkedHashMap<>();
        sizes.put("alpha", 520);
        sizes.put("bravo", 440);
        sizes.put("charlie", 360);
        sizes.put("delta", 300);
        sizes.put("echo", 220);
        sizes.put("foxtrot", 160);
        assertEquals(2000, sizes.values().stream().mapToInt(Integer::intValue).sum());
        // Every fifth tool output is 24 KB: over the 12 KB recent limit, so it is truncated on arrival.
        Map<String, List<Envelope>> produced = TestKafka.conversations(7, "acme", sizes, 24_000);

        try (RemeApp app = RemeApp.start(
                        TestApps.config(broker.bootstrapServers(), dir.resolve("app"), TestApps.SMALL_CONTEXT));
                // Fail every sixth compaction of a session (epochs 4, 10, ...): failures must lose nothing either.
                TestWorker worker = TestWorker.start(broker.bootstrapServers(), TOPICS, r -> r.epoch() % 6 == 4);
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            long started = System.nanoTime();
            worker.awaitAssigned(Duration.ofSeconds(30));
            // Paced like agents talking: each round of ten messages per session goes out once the previous
            // one is processed, so compactions interleave with new messages however fast this machine is.
            Map<String, Integer> sent = new LinkedHashMap<>();
            for (List<Envelope> round : TestKafka.rounds(produced, 10)) {
                TestKafka.send(producer, TOPICS.messages(), round);
                ContextApi.awaitCounted(
                        app::httpUrl,
                        TestApps.ACME_KEY,
                        TestKafka.count(sent, round),
                        Duration.ofSeconds(30),
                        worker::assertHealthy);
            }
            Map<String, JsonNode> contexts = ContextApi.awaitSettled(
                    app::httpUrl, TestApps.ACME_KEY, sizes, Duration.ofSeconds(90), worker::assertHealthy);
            LOG.info("all sessions settled after {} ms", (System.nanoTime() - started) / 1_000_000);

            long archived = contexts.values().stream()
                    .mapToLong(c -> c.path("compaction")
                                    .path("counters")
                                    .path("MESSAGES")
                                    .asLong()
                            - c.path("messages").size())
                    .sum();
            List<ConsumerRecord<String, byte[]>> dialog = TestKafka.readCommitted(
                    broker.bootstrapServers(), TOPICS.dialog(), archived, Duration.ofSeconds(15));
            List<PipelineChecks.SessionOutcome> outcomes = PipelineChecks.verify(produced, contexts, dialog, worker);
            outcomes.forEach(o -> LOG.info("outcome {}", o));

            // Settled means final: nothing changed while the dialog was read.
            for (Map.Entry<String, JsonNode> context : contexts.entrySet()) {
                ContextApi.Response again = ContextApi.wholeWindow(app.httpUrl(), TestApps.ACME_KEY, context.getKey());
                assertEquals(200, again.status());
                assertEquals(
                        context.getValue(), again.body(), "context of " + context.getKey() + " changed after settling");
            }
            assertTrue(
                    TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.dlq(), 0, Duration.ofSeconds(10))
                            .isEmpty(),
                    "nothing was dead-lettered");

            for (PipelineChecks.SessionOutcome outcome : outcomes) {
                if (outcome.produced() >= 300) {
                    assertTrue(outcome.applied() >= 4, "several compactions applied in long session " + outcome);
                }
                assertTrue(outcome.archived() > 0, "every session compacted at least once: " + outcome);
            }
            assertTrue(
                    outcomes.stream()
                                    .mapToLong(PipelineChecks.SessionOutcome::failed)
                                    .sum()
                            > 0,
                    "the worker's failures reached the sessions");
            assertTrue(
                    outcomes.stream()
                                    .mapToLong(PipelineChecks.SessionOutcome::truncatedOutputs)
                                    .sum()
                            > 0,
                    "large tool outputs were truncated");
            assertTrue(
                    outcomes.stream()
                                    .mapToInt(PipelineChecks.SessionOutcome::truncatedNoticesSeen)
                                    .sum()
                            > 0,
                    "truncation notices are visible in archived or live messages");
        }
    }
}
