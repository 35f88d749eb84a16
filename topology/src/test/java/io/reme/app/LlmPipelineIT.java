package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmStatus;
import io.reme.provider.offline.OfflineLlmClient;
import io.reme.summary.SummaryFormat;
import io.reme.topic.Topics;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 * The pipeline with its own LLM workers (in-process, offline extractive provider): one user's long
 * conversation over two sessions, with a few facts planted early in each, is compacted several
 * times per session. Once everything settled, every planted fact is still in each session's
 * summary, the summary is well formed, no message is lost or duplicated, every request was
 * answered exactly once, and the user's diary of that day remembers the facts.
 */
@Tag("integration")
class LlmPipelineIT extends WithBroker {
    private static final Logger LOG = LoggerFactory.getLogger(LlmPipelineIT.class);
    private static final Topics TOPICS = Topics.withDefaultPrefix();
    private static final String USER = "pay-user";
    private static final String DAY = "2026-03-02";
    private static final int SUMMARY_MAX_TOKENS = 8000;

    /** What is planted, by user turn: the text of that user message. */
    private static final Map<Integer, String> PLANTED = Map.of(
            2, "The ledger config is /srv/payments/ledger.yaml and this work is tracked as PAY-7731.",
            5, "The producer currently runs with max.in.flight=5 on every broker.",
            8, "Decision: use idempotent producers");
    /** The facts every summary must keep, as they appear in the summary. */
    private static final List<String> FACTS =
            List.of("/srv/payments/ledger.yaml", "PAY-7731", "max.in.flight=5", "use idempotent producers");

    @Test
    void plantedFactsSurviveRepeatedCompactionAndReachTheDiary() throws Exception {
        Map<String, Integer> sizes = new LinkedHashMap<>();
        sizes.put("pay-1", 128);
        sizes.put("pay-2", 100);
        Map<String, List<Envelope>> produced = conversation(sizes);

        Map<String, String> options = new HashMap<>(TestApps.SMALL_CONTEXT);
        // floor(30000 x 0.7 x 0.95) = 19950 tokens, keep 3000: a compaction every five or six turns. The
        // extractive summary keeps about a third of what it reads but little of a large tool output, so
        // with a large output every other turn the whole conversation's summary stays under its budget
        // and nothing planted has to make way for newer items.
        options.put(AppConfig.MAX_INPUT_LENGTH.name(), "30000");
        options.put(AppConfig.RESERVE.name(), "3000");
        options.put(AppConfig.SUMMARY_MAX_TOKENS.name(), Integer.toString(SUMMARY_MAX_TOKENS));
        options.put(AppConfig.TOOL_RECENT_BYTES.name(), "40000");
        options.put(AppConfig.TOOL_OLD_BYTES.name(), "40000");
        // The real workers, with the offline provider (no LLM endpoint is configured).
        options.put(AppConfig.WORKERS_EMBEDDED.name(), "true");

        try (RemeApp app = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("app"), options));
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            assertEquals(OfflineLlmClient.ID, app.llm().id(), "the embedded workers run the offline provider");
            long started = System.nanoTime();
            Map<String, Integer> sent = new LinkedHashMap<>();
            // Paced like a conversation: each round goes out once the previous one is counted and its
            // compaction, if any, applied, so how often a session is compacted does not depend on how fast
            // this machine is; a round's messages after the one that starts a compaction still arrive while
            // it is pending.
            for (List<Envelope> round : TestKafka.rounds(produced, 8)) {
                TestKafka.send(producer, TOPICS.messages(), round);
                ContextApi.awaitSettled(
                        app::httpUrl,
                        TestApps.ACME_KEY,
                        TestKafka.count(sent, round),
                        Duration.ofSeconds(30),
                        () -> {});
            }
            Map<String, JsonNode> contexts =
                    ContextApi.awaitSettled(app::httpUrl, TestApps.ACME_KEY, sizes, Duration.ofSeconds(60), () -> {});
            LOG.info("all sessions settled after {} ms", (System.nanoTime() - started) / 1_000_000);

            // Every request was answered, once, and OK: the offline provider never fails.
            LlmRecords.Exchange exchange = LlmRecords.await(broker.bootstrapServers(), TOPICS, Duration.ofSeconds(60));
            assertEquals(List.of(), exchange.notAnsweredExactlyOnce(LlmKind.COMPACT));
            assertEquals(List.of(), exchange.notAnsweredExactlyOnce(LlmKind.DIARY));
            assertEquals(
                    0,
                    exchange.count(LlmKind.COMPACT, LlmStatus.FAILED) + exchange.count(LlmKind.DIARY, LlmStatus.FAILED),
                    "no request failed");
            assertEquals(
                    exchange.requests().stream().map(LlmRecords::id).distinct().count(),
                    exchange.requests().size(),
                    "no request was written twice");

            long archived = 0;
            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, JsonNode> entry : contexts.entrySet()) {
                String session = entry.getKey();
                JsonNode context = entry.getValue();
                JsonNode counters = context.path("compaction").path("counters");
                String summary = context.path("summary").asText();
                LOG.info("session {} counters {} summary tokens {}", session, counters, context.path("tokens"));
                archived += counters.path("MESSAGES").asLong()
                        - context.path("messages").size();
                long applied = counters.path("COMPACTIONS_APPLIED").asLong();
                if (applied < 3) {
                    problems.add(session + ": only " + applied + " compactions applied");
                }
                long requested = exchange.requests(LlmKind.COMPACT).stream()
                        .filter(r -> r.dialog().session().equals(session))
                        .count();
                if (counters.path("COMPACTIONS_REQUESTED").asLong() != requested || applied != requested) {
                    problems.add(session + ": " + requested + " COMPACT requests but counters " + counters);
                }
                if (counters.path("INVALID_SUMMARIES").asLong() != 0
                        || counters.path("COMPACTIONS_FAILED").asLong() != 0) {
                    problems.add(session + ": failed or invalid compactions " + counters);
                }
                if (context.path("summaryVersion").asLong() != applied) {
                    problems.add(session + ": summaryVersion " + context.path("summaryVersion") + " after " + applied);
                }
                List<String> format = SummaryFormat.problems(summary, PipelineChecks.TOKENS, SUMMARY_MAX_TOKENS);
                if (!format.isEmpty()) {
                    problems.add(session + ": final summary is invalid: " + format);
                }
                if (!summary.contains(OfflineLlmClient.SUMMARY_MARKER)) {
                    problems.add(session + ": summary was not written by the offline provider");
                }
                for (String fact : FACTS) {
                    if (!summary.contains(fact)) {
                        problems.add(session + ": summary lost '" + fact + "'");
                    }
                }
                String decisions = SummaryFormat.section(summary, "## ", "Key Decisions");
                if (decisions == null || !decisions.contains("use idempotent producers")) {
                    problems.add(session + ": the decision is not under Key Decisions");
                }
                LOG.info("final summary of {}:\n{}", session, summary);
            }
            assertEquals(List.of(), problems);

            List<ConsumerRecord<String, byte[]>> dialog = TestKafka.readCommitted(
                    broker.bootstrapServers(), TOPICS.dialog(), archived, Duration.ofSeconds(15));
            assertEquals(List.of(), PipelineChecks.placementProblems(produced, contexts, dialog));
            assertEquals(archived, dialog.size(), "the dialog holds exactly the archived messages");

            // Every diary update has been answered (above), so the day's document is final.
            ContextApi.Response diary = ContextApi.diary(app.httpUrl(), TestApps.ACME_KEY, USER, DAY);
            assertEquals(200, diary.status(), "the diary of " + DAY + ": " + diary.body());
            String content = diary.body().path("content").asText();
            LOG.info("diary {} version {}:\n{}", DAY, diary.body().path("version"), content);
            assertTrue(content.startsWith("# " + DAY), "a page of that day: " + content);
            assertTrue(content.contains(OfflineLlmClient.DIARY_MARKER), "written by the offline provider");
            assertTrue(FACTS.stream().anyMatch(content::contains), "the diary mentions a planted fact: " + content);
            for (String session : sizes.keySet()) {
                assertTrue(content.contains(session), "the diary has a section of session " + session);
            }
            assertTrue(
                    TestKafka.readCommitted(broker.bootstrapServers(), TOPICS.dlq(), 0, Duration.ofSeconds(10))
                            .isEmpty(),
                    "nothing was dead-lettered");
        }
    }

    /** The generated sessions of one user, with the facts planted in early user turns of each. */
    private static Map<String, List<Envelope>> conversation(Map<String, Integer> sizes) throws IOException {
        // Every other tool output is 30 KB.
        ConversationGenerator generator = new ConversationGenerator(11, 2, 30_000);
        Instant start = Instant.parse(DAY + "T09:00:00Z");
        Map<String, List<Envelope>> out = new LinkedHashMap<>();
        int offset = 0;
        for (Map.Entry<String, Integer> session : sizes.entrySet()) {
            List<Envelope> envelopes = new ArrayList<>(
                    generator.session("acme", session.getKey(), USER, session.getValue(), start.plusSeconds(offset)));
            offset += session.getValue();
            for (Map.Entry<Integer, String> plant : PLANTED.entrySet()) {
                int index = plant.getKey() * 4;
                Envelope original = envelopes.get(index);
                assertEquals("user", original.role());
                ObjectNode message = (ObjectNode) Json.MAPPER.readTree(original.value());
                message.put("content", plant.getValue());
                envelopes.set(
                        index,
                        new Envelope(
                                original.key(),
                                Json.MAPPER.writeValueAsBytes(message),
                                original.role(),
                                original.id()));
            }
            out.put("acme/" + session.getKey(), envelopes);
        }
        return out;
    }
}
