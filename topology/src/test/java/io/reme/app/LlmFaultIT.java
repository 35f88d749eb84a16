package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.dlq.DlqReason;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.provider.CooperativeModel;
import io.reme.provider.OpenAiTestServer;
import io.reme.summary.SummaryFormat;
import io.reme.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process workers with the OpenAI client against a local endpoint that misbehaves: about half
 * of the summary calls get HTTP 500, a tenth answer only after the timeout, a tenth answer with a
 * summary missing a section; the rest, and every call of a diary tool loop, are answered properly.
 * Every compaction must still end OK or FAILED (FAILED ones dead-lettered), no invalid summary may
 * ever be applied, no message may be lost or duplicated, and compactions must get applied regardless.
 */
@Tag("integration")
class LlmFaultIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(LlmFaultIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final int MAX_SUMMARY_TOKENS = 4000;

    /** What the endpoint answers to summary calls, chosen at random per call; diary calls are always cooperative. */
    static final class FaultyModel {
        private final Random random = new Random(20260302);
        final AtomicInteger errors = new AtomicInteger();
        final AtomicInteger delayed = new AtomicInteger();
        final AtomicInteger invalid = new AtomicInteger();
        final AtomicInteger valid = new AtomicInteger();
        final AtomicInteger diaryCalls = new AtomicInteger();
        final AtomicInteger retriesWithReason = new AtomicInteger();
        private final AtomicInteger serials = new AtomicInteger();
        /** Every summary text sent, good or bad (stripped, as the client reads it). */
        final Set<String> validSummaries = ConcurrentHashMap.newKeySet();

        final Set<String> invalidSummaries = ConcurrentHashMap.newKeySet();

        OpenAiTestServer.Reply answer(JsonNode body) {
            OpenAiTestServer.Request request = new OpenAiTestServer.Request(OpenAiTestServer.CHAT_PATH, null, body);
            if (request.hasTools()) {
                diaryCalls.incrementAndGet();
                return CooperativeModel.answer(body);
            }
            String prompt = request.content("user");
            if (prompt.contains(
                    "Your previous answer to this request was refused: missing section '## Key Decisions'")) {
                retriesWithReason.incrementAndGet();
            }
            double roll;
            synchronized (random) {
                roll = random.nextDouble();
            }
            String summary = summary(prompt, serials.incrementAndGet());
            if (roll < 0.5) {
                errors.incrementAndGet();
                return OpenAiTestServer.status(500, "injected server error");
            }
            if (roll < 0.6) {
                delayed.incrementAndGet();
                // Valid, but too late: the client has given up by then, so it must never be applied.
                invalidSummaries.add(summary.strip());
                return OpenAiTestServer.text(summary).after(Duration.ofSeconds(3));
            }
            if (roll < 0.7) {
                invalid.incrementAndGet();
                String broken = summary.replace("## Key Decisions\n(none)\n\n", "");
                invalidSummaries.add(broken.strip());
                return OpenAiTestServer.text(broken);
            }
            valid.incrementAndGet();
            validSummaries.add(summary.strip());
            return OpenAiTestServer.text(summary);
        }

        /** A short well-formed summary naming the answer and the conversation's first and last lines. */
        private static String summary(String prompt, int serial) {
            List<String> lines = new ArrayList<>();
            boolean conversation = false;
            for (String line : prompt.split("\n")) {
                if (line.startsWith("# ")) {
                    conversation = line.equals("# Conversation");
                } else if (conversation && line.startsWith("Turn ")) {
                    lines.add(line.length() > 120 ? line.substring(0, 120) : line);
                }
            }
            String first = lines.isEmpty() ? "(none)" : "- " + lines.get(0);
            String last = lines.isEmpty() ? "(none)" : "- " + lines.get(lines.size() - 1);
            return "## Goal\n" + first + "\n\n## Constraints & Preferences\n(none)\n\n## Progress\n### Done\n"
                    + last + "\n\n### In Progress\n(none)\n\n### Blocked\n(none)\n\n## Key Decisions\n(none)\n\n"
                    + "## Next Steps\n1. Carry on.\n\n## Critical Context\n- answer " + serial + " over "
                    + lines.size() + " user turns\n";
        }
    }

    /** Reads every session's context while the test runs and keeps each distinct summary it ever showed. */
    static final class SummaryWatcher implements AutoCloseable {
        private final Thread thread;
        private volatile boolean running = true;
        final Map<String, Set<String>> seen = new ConcurrentHashMap<>();
        final List<String> errors = new CopyOnWriteArrayList<>();
        final AtomicInteger polls = new AtomicInteger();

        SummaryWatcher(String baseUrl, Set<String> sessions) {
            thread = new Thread(
                    () -> {
                        while (running) {
                            for (String session : sessions) {
                                ContextApi.Response response = ContextApi.get(baseUrl, TestApps.ACME_KEY, session);
                                if (response.status() == 200) {
                                    polls.incrementAndGet();
                                    record(
                                            session,
                                            response.body().path("summary").asText());
                                }
                            }
                            try {
                                // A pause, not a wait: the watcher paces its reads.
                                Thread.sleep(50);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "summary-watcher");
            thread.setDaemon(true);
            thread.start();
        }

        void record(String session, String summary) {
            if (!summary.isEmpty()
                    && seen.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet())
                            .add(summary)) {
                List<String> problems = SummaryFormat.problems(summary, PipelineChecks.TOKENS, MAX_SUMMARY_TOKENS);
                if (!problems.isEmpty()) {
                    errors.add(session + " showed an invalid summary " + problems + ":\n" + summary);
                }
            }
        }

        /** Stops reading contexts and waits (up to 10 s) for the last read to end. */
        void stop() {
            running = false;
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            stop();
        }
    }

    @Test
    void compactionsEndOkOrFailedAndNoInvalidSummaryIsEverApplied() throws Exception {
        Map<String, Integer> sizes = new LinkedHashMap<>();
        sizes.put("fault-a", 180);
        sizes.put("fault-b", 180);
        Map<String, List<Envelope>> produced = TestKafka.conversations(23, "acme", sizes, 24_000);
        FaultyModel model = new FaultyModel();

        try (OpenAiTestServer server = OpenAiTestServer.start(model::answer)) {
            Map<String, String> options = new HashMap<>(TestApps.SMALL_CONTEXT);
            options.put(AppConfig.WORKERS_EMBEDDED.name(), "true");
            options.put(AppConfig.LLM_BASE_URL.name(), server.baseUrl());
            options.put(AppConfig.LLM_API_KEY.name(), OpenAiTestServer.API_KEY);
            options.put(AppConfig.LLM_MODEL.name(), OpenAiTestServer.MODEL);
            options.put(AppConfig.LLM_TIMEOUT.name(), "2s");
            // Extraction would add three model calls per span; with 2-second timeouts on a loaded machine
            // they starve the diary calls this test expects to pass undisturbed. It has its own tests.
            options.put(AppConfig.MEMORY_EXTRACT.name(), "false");
            options.put(AppConfig.LLM_BACKOFF.name(), "50ms");
            options.put(AppConfig.LLM_BACKOFF_MAX.name(), "400ms");
            options.put(AppConfig.LLM_MAX_ATTEMPTS.name(), "4");
            options.put(AppConfig.SUMMARY_MAX_TOKENS.name(), Integer.toString(MAX_SUMMARY_TOKENS));

            try (RemeApp app = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("app"), options));
                    KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers());
                    SummaryWatcher watcher = new SummaryWatcher(app.httpUrl(), sizes.keySet())) {
                assertEquals("openai:" + OpenAiTestServer.MODEL, app.llm().id());
                long started = System.nanoTime();
                Map<String, Integer> sent = new LinkedHashMap<>();
                // Each round goes out once the previous one is counted and its compaction, if any, has ended,
                // so there are enough compactions to see every kind of fault; the messages of a round after
                // the one that triggers a compaction still arrive while it is pending.
                for (List<Envelope> round : TestKafka.rounds(produced, 8)) {
                    TestKafka.send(producer, TOPICS.messages(), round);
                    ContextApi.awaitSettled(
                            app::httpUrl,
                            TestApps.ACME_KEY,
                            TestKafka.count(sent, round),
                            Duration.ofSeconds(60),
                            () -> {});
                }
                Map<String, JsonNode> contexts = ContextApi.awaitSettled(
                        app::httpUrl, TestApps.ACME_KEY, sizes, Duration.ofSeconds(90), () -> {});
                LOG.info(
                        "all sessions settled after {} ms; endpoint answered {} errors, {} late, {} invalid, {} valid "
                                + "summaries and {} diary calls",
                        (System.nanoTime() - started) / 1_000_000,
                        model.errors,
                        model.delayed,
                        model.invalid,
                        model.valid,
                        model.diaryCalls);

                LlmRecords.Exchange exchange =
                        LlmRecords.await(broker.bootstrapServers(), TOPICS, Duration.ofSeconds(60));
                watcher.stop();
                contexts.forEach((session, context) ->
                        watcher.record(session, context.path("summary").asText()));
                verify(produced, contexts, exchange, model, watcher);
            }
        }
    }

    private static void verify(
            Map<String, List<Envelope>> produced,
            Map<String, JsonNode> contexts,
            LlmRecords.Exchange exchange,
            FaultyModel model,
            SummaryWatcher watcher) {
        // Every request ended, exactly once; every diary update succeeded (those calls were not disturbed).
        assertEquals(List.of(), exchange.notAnsweredExactlyOnce(LlmKind.COMPACT));
        assertEquals(List.of(), exchange.notAnsweredExactlyOnce(LlmKind.DIARY));
        List<LlmRequest> compactions = exchange.requests(LlmKind.COMPACT);
        long ok = exchange.count(LlmKind.COMPACT, LlmStatus.OK);
        long failed = exchange.count(LlmKind.COMPACT, LlmStatus.FAILED);
        LOG.info(
                "{} compactions: {} OK, {} FAILED; {} diary updates",
                compactions.size(),
                ok,
                failed,
                exchange.requests(LlmKind.DIARY).size());
        assertEquals(compactions.size(), ok + failed, "every compaction ended OK or FAILED");
        assertEquals(0, exchange.count(LlmKind.DIARY, LlmStatus.FAILED), "no diary update failed");
        assertEquals(List.of(), exchange.notAnsweredExactlyOnce(LlmKind.EXTRACT));
        assertEquals(0, exchange.count(LlmKind.EXTRACT, LlmStatus.FAILED), "no extraction failed");
        assertTrue(ok >= 10, "compactions were applied despite the faults: " + ok);
        assertTrue(failed > 0, "some compactions used up their attempts: " + failed);

        // No OK result carries an invalid summary, or one the endpoint did not send in time.
        List<String> errors = new ArrayList<>(watcher.errors);
        Map<String, List<LlmResult>> okBySession = new HashMap<>();
        for (LlmRequest request : compactions) {
            for (LlmResult result : exchange.resultsOf(request)) {
                if (result.status() == LlmStatus.OK) {
                    okBySession
                            .computeIfAbsent(request.dialog().session(), s -> new ArrayList<>())
                            .add(result);
                    List<String> problems =
                            SummaryFormat.problems(result.payload(), PipelineChecks.TOKENS, MAX_SUMMARY_TOKENS);
                    if (!problems.isEmpty() || !model.validSummaries.contains(result.payload())) {
                        errors.add("OK result " + request.requestId() + " carries a summary that is invalid " + problems
                                + " or was not sent in time");
                    }
                } else if (result.error() == null || result.error().isBlank()) {
                    errors.add("FAILED result " + request.requestId() + " does not say why");
                }
            }
        }

        // Every FAILED compaction was dead-lettered with LLM_FAILED, and nothing else was.
        Set<String> failedIds = compactions.stream()
                .filter(r -> exchange.resultsOf(r).stream().anyMatch(x -> x.status() == LlmStatus.FAILED))
                .map(LlmRequest::requestId)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> deadLettered = new TreeSet<>();
        for (ConsumerRecord<String, byte[]> record : TestKafka.readCommitted(
                broker.bootstrapServers(), TOPICS.dlq(), failedIds.size(), Duration.ofSeconds(15))) {
            String reason = DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.REASON);
            LlmRequest request = PipelineChecks.read(record.value(), LlmRequest.class);
            if (!DlqReason.LLM_FAILED.name().equals(reason) || request.kind() != LlmKind.COMPACT) {
                errors.add("unexpected dead letter " + reason + " " + request.kind() + " " + request.requestId());
            }
            if (!deadLettered.add(request.requestId())) {
                errors.add("request " + request.requestId() + " dead-lettered twice");
            }
        }
        assertEquals(failedIds, deadLettered, "the FAILED compactions are exactly the dead-lettered ones");

        // Every summary ever shown is one the endpoint sent in time, and the final one is the latest applied.
        for (Map.Entry<String, Set<String>> session : watcher.seen.entrySet()) {
            for (String summary : session.getValue()) {
                if (!model.validSummaries.contains(summary) || model.invalidSummaries.contains(summary)) {
                    errors.add(session.getKey() + " showed a summary the endpoint did not send as a timely valid "
                            + "answer:\n" + summary);
                }
            }
        }
        long archived = 0;
        for (Map.Entry<String, JsonNode> entry : contexts.entrySet()) {
            String session = entry.getKey();
            JsonNode context = entry.getValue();
            JsonNode counters = context.path("compaction").path("counters");
            LOG.info("session {} counters {}", session, counters);
            archived += counters.path("MESSAGES").asLong()
                    - context.path("messages").size();
            List<LlmResult> sessionOk = okBySession.getOrDefault(session, List.of());
            long sessionRequests = compactions.stream()
                    .filter(r -> r.dialog().session().equals(session))
                    .count();
            if (counters.path("COMPACTIONS_APPLIED").asLong() != sessionOk.size()
                    || counters.path("COMPACTIONS_REQUESTED").asLong() != sessionRequests
                    || counters.path("COMPACTIONS_FAILED").asLong() != sessionRequests - sessionOk.size()
                    || counters.path("INVALID_SUMMARIES").asLong() != 0
                    || counters.path("STALE_RESULTS").asLong() != 0
                    || counters.path("DUPLICATE_RESULTS").asLong() != 0) {
                errors.add(session + ": counters " + counters + " disagree with " + sessionRequests + " requests and "
                        + sessionOk.size() + " OK results");
            }
            if (sessionOk.isEmpty()) {
                errors.add(session + ": no compaction applied");
                continue;
            }
            Optional<LlmResult> latest = sessionOk.stream().max(Comparator.comparingLong(LlmResult::epoch));
            if (!context.path("summary").asText().equals(latest.get().payload())) {
                errors.add(session + ": the final summary is not the latest OK result's");
            }
        }
        assertEquals(List.of(), errors);
        assertTrue(watcher.polls.get() > 20, "the watcher looked often: " + watcher.polls.get());

        List<ConsumerRecord<String, byte[]>> dialog =
                TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.dialog(), archived, Duration.ofSeconds(15));
        assertEquals(List.of(), PipelineChecks.placementProblems(produced, contexts, dialog));
        assertEquals(archived, dialog.size(), "the dialog holds exactly the archived messages");

        // The faults did happen, and the refusal reason reached the model.
        assertTrue(
                model.errors.get() > 0 && model.delayed.get() > 0 && model.invalid.get() > 0 && model.valid.get() > 0,
                "every kind of answer was given");
        assertTrue(model.retriesWithReason.get() > 0, "a retry after a refused summary told the model why");
    }
}
