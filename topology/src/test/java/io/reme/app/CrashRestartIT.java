package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.topic.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An unclean stop in the middle of a run: the application runs in a child JVM (as {@code
 * reme-streams run} would), is killed with SIGKILL while messages and compaction results are in
 * flight (no commit, no close, no leaving the group), and is started again on the same data
 * directory. Exactly-once processing must show: nothing lost, nothing archived or requested
 * twice, and the same token accounting as a run without a crash.
 */
@Tag("integration")
class CrashRestartIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(CrashRestartIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int PER_SESSION = 300;
    private static final int CHUNK = 5;

    @Test
    void aKilledInstanceRestartsWithoutLosingOrDuplicatingAnything() throws Exception {
        Map<String, Integer> sizes = new LinkedHashMap<>();
        for (String session : List.of("kilo", "lima", "mike", "november")) {
            sizes.put(session, PER_SESSION);
        }
        int total = sizes.values().stream().mapToInt(Integer::intValue).sum();
        Map<String, List<Envelope>> produced = TestKafka.conversations(11, "acme", sizes, 24_000);
        List<List<Envelope>> rounds = TestKafka.rounds(produced, CHUNK);
        int half = rounds.size() / 2;
        // Of the first half only the first quarter exists while the first instance runs, so it can
        // never have processed all of the first half when it is killed.
        int beforeKill = half / 2;

        Path dataDir = dir.resolve("app");
        Path config = dir.resolve("reme.properties");
        // The killed member never leaves the group; a short session timeout lets the restart take over sooner.
        Files.writeString(config, "kafka.session.timeout.ms=6000\nkafka.heartbeat.interval.ms=1500\n");

        long started = System.nanoTime();
        try (TestWorker worker = TestWorker.start(broker.bootstrapServers(), TOPICS);
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            long processedAtKill;
            try (AppProcess first = child(dataDir, config, dir.resolve("first.log"))) {
                String url = first.awaitReady(Duration.ofSeconds(90));
                worker.awaitAssigned(Duration.ofSeconds(30));
                TestKafka.send(producer, TOPICS.messages(), rounds.get(0));
                ContextApi.awaitCounted(
                        () -> url,
                        TestApps.ACME_KEY,
                        TestKafka.count(new LinkedHashMap<>(), rounds.get(0)),
                        Duration.ofSeconds(30),
                        worker::assertHealthy);

                // Keep producing in the background; kill once part of it is processed and compacted.
                AtomicReference<Throwable> sendFailure = new AtomicReference<>();
                Thread pacer = new Thread(
                        () -> {
                            try {
                                for (List<Envelope> round : rounds.subList(1, beforeKill)) {
                                    TestKafka.send(producer, TOPICS.messages(), round);
                                    // A pause, not a wait: the producer paces its rounds.
                                    Thread.sleep(100);
                                }
                            } catch (Throwable t) {
                                sendFailure.set(t);
                            }
                        },
                        "pacer");
                pacer.start();
                processedAtKill = awaitProgress(url, sizes.keySet(), 150, Duration.ofSeconds(60), worker);
                first.kill();
                pacer.join(30_000);
                if (sendFailure.get() != null) {
                    throw new AssertionError("producing failed", sendFailure.get());
                }
            }

            int firstHalf =
                    rounds.subList(0, half).stream().mapToInt(List::size).sum();
            assertTrue(
                    processedAtKill < firstHalf,
                    "killed after part, not all, of the first half: " + processedAtKill + " of " + firstHalf);
            // Messages keep arriving while no instance runs.
            for (List<Envelope> round : rounds.subList(beforeKill, half)) {
                TestKafka.send(producer, TOPICS.messages(), round);
            }

            try (AppProcess second = child(dataDir, config, dir.resolve("second.log"))) {
                String url = second.awaitReady(Duration.ofSeconds(90));
                LOG.info("second instance ready after {} ms", (System.nanoTime() - started) / 1_000_000);
                // Everything produced so far must be processed first; then the rest, a round at a time.
                Map<String, Integer> sent = new LinkedHashMap<>();
                rounds.subList(0, half).forEach(round -> TestKafka.count(sent, round));
                for (List<Envelope> round : rounds.subList(half, rounds.size())) {
                    ContextApi.awaitCounted(() -> url, TestApps.ACME_KEY, sent, Duration.ofSeconds(60), () -> {
                        worker.assertHealthy();
                        second.requireAlive();
                    });
                    TestKafka.send(producer, TOPICS.messages(), round);
                    TestKafka.count(sent, round);
                }
                Map<String, JsonNode> contexts =
                        ContextApi.awaitSettled(() -> url, TestApps.ACME_KEY, sizes, Duration.ofSeconds(90), () -> {
                            worker.assertHealthy();
                            second.requireAlive();
                        });
                long archived = contexts.values().stream()
                        .mapToLong(c -> c.path("compaction")
                                        .path("counters")
                                        .path("MESSAGES")
                                        .asLong()
                                - c.path("messages").size())
                        .sum();
                List<ConsumerRecord<String, byte[]>> dialog = TestKafka.readCommitted(
                        broker.bootstrapServers(), TOPICS.dialog(), archived, Duration.ofSeconds(15));
                List<PipelineChecks.SessionOutcome> outcomes =
                        PipelineChecks.verify(produced, contexts, dialog, worker);
                outcomes.forEach(o -> LOG.info("outcome {}", o));
                assertEquals(
                        total,
                        outcomes.stream().mapToInt(o -> o.archived() + o.live()).sum());
                assertTrue(
                        TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.dlq(), 0, Duration.ofSeconds(10))
                                .isEmpty(),
                        "nothing was dead-lettered");
                for (PipelineChecks.SessionOutcome outcome : outcomes) {
                    assertTrue(outcome.applied() >= 5, "compactions went on after the restart: " + outcome);
                }
            }
        }
        LOG.info("crash and restart verified in {} ms", (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * Waits until the instance has processed at least {@code messages} messages in total and applied
     * at least one compaction, and returns how many messages it had counted then.
     */
    private static long awaitProgress(
            String url, Iterable<String> sessions, long messages, Duration timeout, TestWorker worker)
            throws InterruptedException {
        AtomicReference<Map<String, String>> lastSeen = new AtomicReference<>(Map.of());
        AtomicLong lastCounted = new AtomicLong();
        Awaitility.await("progress to " + messages + " messages and a compaction")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(50))
                .failFast("the test worker failed", worker::assertHealthy)
                .untilAsserted(() -> {
                    Map<String, String> seen = new LinkedHashMap<>();
                    long counted = 0;
                    long applied = 0;
                    for (String session : sessions) {
                        ContextApi.Response response = ContextApi.get(url, TestApps.ACME_KEY, session);
                        if (response.status() == 200) {
                            JsonNode counters =
                                    response.body().path("compaction").path("counters");
                            counted += counters.path("MESSAGES").asLong();
                            applied += counters.path("COMPACTIONS_APPLIED").asLong();
                            seen.put(
                                    session,
                                    counters.path("MESSAGES").asLong() + " messages, "
                                            + counters.path("COMPACTIONS_APPLIED")
                                                    .asLong() + " compactions, pending "
                                            + response.pending());
                        }
                    }
                    lastSeen.set(seen);
                    lastCounted.set(counted);
                    assertTrue(counted >= messages && applied > 0, "seen: " + seen);
                });
        LOG.info("killing the first instance at {}", lastSeen.get());
        return lastCounted.get();
    }

    /**
     * {@code reme-streams run} in a child JVM on this test's classpath against the test broker,
     * configured through the environment as an operator would.
     */
    static AppProcess child(Path dataDir, Path config, Path log) throws IOException {
        return child(dataDir, config, environment(), log);
    }

    /** As {@link #child(Path, Path, Path)}, configured through {@code environment}. */
    static AppProcess child(Path dataDir, Path config, Map<String, String> environment, Path log) throws IOException {
        return AppProcess.start(
                List.of(
                        "--bootstrap-servers",
                        broker.bootstrapServers(),
                        "--data-dir",
                        dataDir.toString(),
                        "--http-port",
                        "0",
                        "--config",
                        config.toString()),
                environment,
                log);
    }

    /** The small-context settings and keys, as the environment variables an operator would set. */
    private static Map<String, String> environment() {
        Map<String, String> options = new HashMap<>(TestApps.SMALL_CONTEXT);
        options.put(AppConfig.API_KEYS.name(), TestApps.API_KEYS);
        options.put(AppConfig.REQUEST_SECRET.name(), TestApps.REQUEST_SECRET);
        options.put(AppConfig.PARTITIONS.name(), "4");
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "false");
        // Five times the default: more processed-but-uncommitted work is lost at the kill, so a
        // commit that is not atomic with the outputs shows up as duplicates (at_least_once does).
        options.put(AppConfig.COMMIT_INTERVAL_MS.name(), "500");
        return TestApps.environment(options);
    }
}
