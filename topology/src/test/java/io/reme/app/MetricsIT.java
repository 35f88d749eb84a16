package io.reme.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.config.AppConfig;
import io.reme.dlq.DlqReason;
import io.reme.edge.ApiServer;
import io.reme.json.Json;
import io.reme.llm.LlmRequest;
import io.reme.message.MessageParser;
import io.reme.prometheus.PrometheusText;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} after scripted runs on the in-JVM broker: the pipeline's counters equal what
 * the run did (messages, tokens, compactions, dead letters, searches, index size), tenants off the
 * allow-list never appear as label values, and the LLM workers' calls are timed by kind and outcome.
 */
@Tag("integration")
class MetricsIT extends WithBroker {
    private static final MessageParser PARSER = new MessageParser(4 * 1024 * 1024);

    private static Map<String, String> options(String name, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(TestApps.SMALL_CONTEXT);
        options.put(AppConfig.TOPIC_PREFIX.name(), name + ".");
        options.put(AppConfig.APPLICATION_ID.name(), name);
        options.put(AppConfig.METRICS_TENANTS.name(), "acme");
        options.putAll(extra);
        return options;
    }

    @Test
    void theCountersEqualWhatTheRunDid() throws Exception {
        Topics topics = new Topics("metrics-pipeline.");
        Map<String, Integer> acmeSizes = new LinkedHashMap<>(Map.of("alpha", 160, "bravo", 90));
        Map<String, Integer> globexSizes = Map.of("gamma", 120);
        // Tool outputs stay under the 12 KB limit, so a message's tokens are those of the envelope as sent.
        Map<String, List<Envelope>> acme = TestKafka.conversations(11, "acme", acmeSizes, 0);
        Map<String, List<Envelope>> globex = TestKafka.conversations(12, "globex", globexSizes, 0);
        Predicate<LlmRequest> failSome = request -> request.epoch() % 3 == 2;

        try (RemeApp app = RemeApp.start(TestApps.config(
                        broker.bootstrapServers(), dir.resolve("pipeline"), options("metrics-pipeline", Map.of())));
                TestWorker worker = TestWorker.start(broker.bootstrapServers(), topics, failSome);
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            worker.awaitAssigned(Duration.ofSeconds(30));
            Map<String, Integer> sentAcme = new LinkedHashMap<>();
            Map<String, Integer> sentGlobex = new LinkedHashMap<>();
            List<List<Envelope>> acmeRounds = TestKafka.rounds(acme, 10);
            List<List<Envelope>> globexRounds = TestKafka.rounds(globex, 10);
            for (int i = 0; i < Math.max(acmeRounds.size(), globexRounds.size()); i++) {
                List<Envelope> round = new ArrayList<>();
                if (i < acmeRounds.size()) {
                    round.addAll(acmeRounds.get(i));
                    TestKafka.count(sentAcme, acmeRounds.get(i));
                }
                if (i < globexRounds.size()) {
                    round.addAll(globexRounds.get(i));
                    TestKafka.count(sentGlobex, globexRounds.get(i));
                }
                TestKafka.send(producer, topics.messages(), round);
                ContextApi.awaitCounted(
                        app::httpUrl, TestApps.ACME_KEY, sentAcme, Duration.ofSeconds(30), worker::assertHealthy);
            }
            // Bad input: two bodies that are not JSON, one envelope whose key names another session.
            byte[] wrongSession = acme.get("acme/alpha").get(0).value();
            for (ProducerRecord<byte[], byte[]> bad : List.of(
                    record(topics.messages(), "acme/alpha", "not json".getBytes(StandardCharsets.UTF_8)),
                    record(topics.messages(), "globex/gamma", "{".getBytes(StandardCharsets.UTF_8)),
                    record(topics.messages(), "acme/elsewhere", wrongSession))) {
                producer.send(bad);
            }
            producer.flush();
            int memories = 7;
            for (int i = 0; i < memories; i++) {
                String memory = "{\"id\":\"m" + i + "\",\"tenant\":\"acme\",\"user\":\"user-alpha\","
                        + "\"type\":\"PERSONAL\",\"text\":\"Alice prefers tea number " + i + "\","
                        + "\"createdAt\":\"2026-03-02T09:00:00Z\",\"updatedAt\":\"2026-03-02T09:00:00Z\","
                        + "\"conversationTime\":\"2026-03-02T09:00:00Z\"}";
                producer.send(record(topics.memories(), "acme/m" + i, memory.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();

            Map<String, JsonNode> acmeContexts = ContextApi.awaitSettled(
                    app::httpUrl, TestApps.ACME_KEY, acmeSizes, Duration.ofSeconds(90), worker::assertHealthy);
            Map<String, JsonNode> globexContexts = ContextApi.awaitSettled(
                    app::httpUrl, TestApps.GLOBEX_KEY, globexSizes, Duration.ofSeconds(90), worker::assertHealthy);
            for (int i = 0; i < 2; i++) {
                ApiClient.Response search =
                        ApiClient.post(app.httpUrl() + "/v1/search", TestApps.ACME_KEY, "{\"query\":\"tea\",\"k\":5}");
                assertEquals(200, search.status(), search.text());
            }

            PrometheusText scrape = awaitScrape(
                    app.httpUrl(),
                    s -> s.value("reme_dlq_records_total", "reason=KEY_MISMATCH") == 1
                            && s.value("reme_index_memories") == memories);
            assertEquals(total(acmeSizes), scrape.value("reme_messages_in_total", "tenant=acme"));
            assertEquals(total(globexSizes), scrape.value("reme_messages_in_total", "tenant=other"));
            assertEquals(tokens(acme), scrape.value("reme_tokens_counted_total", "tenant=acme"));
            assertEquals(tokens(globex), scrape.value("reme_tokens_counted_total", "tenant=other"));
            for (Map.Entry<String, Map<String, JsonNode>> tenant :
                    Map.of("acme", acmeContexts, "other", globexContexts).entrySet()) {
                assertCompactions(scrape, tenant.getKey(), tenant.getValue());
            }
            long failedAnswers =
                    worker.answers().values().stream().filter(a -> !a.ok()).count();
            assertTrue(failedAnswers > 0, "the worker failed some compactions");
            assertEquals(
                    failedAnswers,
                    scrape.value("reme_compactions_total", "tenant=acme", "event=failed")
                            + scrape.value("reme_compactions_total", "tenant=other", "event=failed"));

            assertEquals(2, scrape.value("reme_dlq_records_total", "reason=MALFORMED_JSON"));
            assertEquals(1, scrape.value("reme_dlq_records_total", "reason=KEY_MISMATCH"));
            assertEquals(
                    3,
                    scrape.samples().entrySet().stream()
                            .filter(e -> e.getKey().startsWith("reme_dlq_records_total"))
                            .mapToDouble(Map.Entry::getValue)
                            .sum(),
                    "no other dead letters");
            assertEquals(0, scrape.value("reme_dlq_records_total", "reason=" + DlqReason.INVALID_ID));
            assertEquals(2, scrape.value("reme_search_seconds_count", "partial=false"));
            assertEquals(memories, scrape.value("reme_index_memories"));
            // Registered, and nothing left to restore once the index answers.
            assertEquals(0, scrape.value("reme_index_restore_remaining"));
            assertEquals(0, scrape.value("reme_index_restore_partitions"));
            ApiClient.Response pipeline = ApiClient.send(app, "GET", "/v1/pipeline", TestApps.ACME_KEY, null);
            assertEquals(200, pipeline.status(), pipeline.text());
            JsonNode restore = pipeline.json().path("metrics").path("indexRestore");
            assertEquals(0, restore.path("partitions").asInt(-1), pipeline.text());
            assertEquals(0, restore.path("remaining").asLong(-1), pipeline.text());

            assertTrue(
                    scrape.samples().keySet().stream().anyMatch(k -> k.startsWith("kafka_stream_thread_")),
                    "Kafka Streams client metrics are exported");
            assertTrue(
                    scrape.samples().keySet().stream().anyMatch(k -> k.startsWith("jvm_memory_used_bytes")),
                    "JVM metrics are exported");
            assertFalse(
                    scrape.samples().keySet().stream().anyMatch(k -> k.contains("globex")),
                    "a tenant off the allow-list is never a label value");
        }
    }

    @Test
    void theWorkersCallsAreTimedByKindAndOutcome() throws Exception {
        Topics topics = new Topics("metrics-workers.");
        Map<String, Integer> sizes = Map.of("alpha", 60);
        Map<String, List<Envelope>> conversation = TestKafka.conversations(13, "acme", sizes, 0);
        // The in-process workers with the offline provider (no LLM configured): every call succeeds.
        try (RemeApp app = RemeApp.start(TestApps.config(
                        broker.bootstrapServers(),
                        dir.resolve("workers"),
                        options("metrics-workers", Map.of(AppConfig.WORKERS_EMBEDDED.name(), "true"))));
                KafkaProducer<byte[], byte[]> producer = TestKafka.producer(broker.bootstrapServers())) {
            TestKafka.send(producer, topics.messages(), conversation.get("acme/alpha"));
            Map<String, JsonNode> contexts =
                    ContextApi.awaitSettled(app::httpUrl, TestApps.ACME_KEY, sizes, Duration.ofSeconds(90), () -> {});
            JsonNode counters = contexts.get("alpha").path("compaction").path("counters");
            long applied = counters.path("COMPACTIONS_APPLIED").asLong();
            assertTrue(applied >= 1, "the session was compacted: " + counters);

            // A compaction's DIARY request is answered after its COMPACT one; wait for both.
            PrometheusText scrape = awaitScrape(
                    app.httpUrl(),
                    s -> s.value("reme_llm_requests_total", "kind=COMPACT", "status=OK") == applied
                            && s.value("reme_llm_requests_total", "kind=DIARY", "status=OK") >= 1);
            String[] compactOk = {"kind=COMPACT", "outcome=OK"};
            assertEquals(
                    applied,
                    scrape.value("reme_llm_calls_seconds_count", compactOk),
                    "one call per request: the offline provider never fails");
            assertEquals(
                    applied, scrape.value("reme_llm_calls_seconds_bucket", "kind=COMPACT", "outcome=OK", "le=+Inf"));
            assertTrue(scrape.value("reme_llm_calls_seconds_sum", compactOk) > 0, "calls take time");
            // A diary request makes one call per conversation day, and again after losing an edit race.
            assertTrue(scrape.value("reme_llm_calls_seconds_count", "kind=DIARY", "outcome=OK")
                    >= scrape.value("reme_llm_requests_total", "kind=DIARY", "status=OK"));
            for (String outcome : List.of("INVALID_OUTPUT", "TIMEOUT", "ERROR")) {
                assertEquals(0, scrape.value("reme_llm_calls_seconds_count", "kind=COMPACT", "outcome=" + outcome));
            }
            assertEquals(0, scrape.value("reme_llm_requests_total", "kind=COMPACT", "status=FAILED"));
            assertEquals(applied, scrape.value("reme_compactions_total", "tenant=acme", "event=applied"));

            ApiClient.Response openApi = ApiClient.get(app.httpUrl() + "/openapi.json", null);
            assertEquals(200, openApi.status());
            assertEquals(
                    Json.MAPPER.readTree(ApiServer.openApiDocument()),
                    openApi.json(),
                    "/openapi.json serves the description");
            ApiClient.Response asyncApi = ApiClient.get(app.httpUrl() + "/asyncapi.json", null);
            assertEquals(200, asyncApi.status());
            assertEquals(
                    Json.MAPPER.readTree(ApiServer.asyncApiDocument()),
                    asyncApi.json(),
                    "/asyncapi.json serves the topics' description, without a key");

            // The alerts and the dashboard ask only for series this instance serves (histograms by their buckets).
            Set<String> served = scrape.samples().keySet().stream()
                    .map(series -> series.contains("{") ? series.substring(0, series.indexOf('{')) : series)
                    .collect(Collectors.toCollection(TreeSet::new));
            Path docker = Path.of("..", "docker");
            String rules = Files.readString(docker.resolve("prometheus").resolve("alerts.yml"));
            Set<String> recorded = new TreeSet<>();
            Matcher record = Pattern.compile("(?m)^\\s*- record: (\\S+)$").matcher(rules);
            while (record.find()) {
                recorded.add(record.group(1));
            }
            JsonNode dashboard = Json.MAPPER.readTree(
                    docker.resolve("grafana").resolve("reme-streams.json").toFile());
            List<String> queries = new ArrayList<>();
            dashboard
                    .path("panels")
                    .forEach(panel -> panel.path("targets")
                            .forEach(target -> queries.add(target.path("expr").asText())));
            assertTrue(queries.size() >= 14, "the dashboard's queries: " + queries);
            queries.add(rules);
            Pattern series = Pattern.compile("\\b(?:reme|kafka)_[a-z0-9_]+\\b");
            Pattern rule = Pattern.compile("\\breme:[a-z0-9_:]+\\b");
            for (String query : queries) {
                Matcher named = series.matcher(query);
                while (named.find()) {
                    assertTrue(served.contains(named.group()), named.group() + " is not served; " + query);
                }
                Matcher ruled = rule.matcher(query);
                while (ruled.find()) {
                    assertTrue(recorded.contains(ruled.group()), ruled.group() + " is not recorded in alerts.yml");
                }
            }
        }
    }

    private static void assertCompactions(PrometheusText scrape, String label, Map<String, JsonNode> contexts) {
        Map<String, String> events = Map.of(
                "requested",
                "COMPACTIONS_REQUESTED",
                "applied",
                "COMPACTIONS_APPLIED",
                "failed",
                "COMPACTIONS_FAILED",
                "invalid_summary",
                "INVALID_SUMMARIES",
                "timed_out",
                "COMPACTIONS_TIMED_OUT");
        events.forEach((event, counter) -> {
            long expected = contexts.values().stream()
                    .mapToLong(c ->
                            c.path("compaction").path("counters").path(counter).asLong(0))
                    .sum();
            assertEquals(
                    expected,
                    scrape.value("reme_compactions_total", "tenant=" + label, "event=" + event),
                    label + " " + event);
        });
        assertTrue(
                scrape.value("reme_compactions_total", "tenant=" + label, "event=applied") > 0,
                label + " sessions were compacted");
    }

    private static int total(Map<String, Integer> sizes) {
        return sizes.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Tokens of every envelope, counted as the session processor counts a message on arrival. */
    private static long tokens(Map<String, List<Envelope>> sessions) {
        long total = 0;
        for (List<Envelope> envelopes : sessions.values()) {
            for (Envelope envelope : envelopes) {
                total += PipelineChecks.TOKENS.count(PARSER.parse(
                        envelope.key().getBytes(StandardCharsets.UTF_8), envelope.value(), 0L, envelope.id()));
            }
        }
        return total;
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String key, byte[] value) {
        return new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value);
    }

    /** Scrapes until {@code ready} holds: asynchronous work (workers, the index) is counted a little later. */
    private static PrometheusText awaitScrape(String baseUrl, Predicate<PrometheusText> ready) {
        AtomicReference<PrometheusText> last = new AtomicReference<>();
        try {
            return await("metrics in the expected state")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(
                            () -> {
                                ApiClient.Response response = ApiClient.get(baseUrl + "/metrics", null);
                                // Not retried: a wrong answer fails at once.
                                assertEquals(200, response.status(), response.text());
                                assertTrue(
                                        String.valueOf(response.contentType()).startsWith("text/plain"),
                                        "Prometheus text format");
                                last.set(PrometheusText.parse(response.text()));
                                return last.get();
                            },
                            ready);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "metrics did not reach the expected state within 30 s: "
                            + (last.get() == null
                                    ? "no scrape"
                                    : last.get().samples().entrySet().stream()
                                            .filter(sample -> sample.getKey().startsWith("reme_"))
                                            .filter(sample -> sample.getValue() != 0)
                                            .toList()),
                    e);
        }
    }
}
