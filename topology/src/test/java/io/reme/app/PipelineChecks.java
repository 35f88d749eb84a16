package io.reme.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.session.ArchivedMessage;
import io.reme.tokens.TokenCounter;
import io.reme.toolresult.ToolResultTruncator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The end-to-end invariants of the session pipeline, checked on what a client can observe once
 * every session has settled: the archived dialog (read as committed) and the context the API
 * serves. Every problem found is collected, so one failure report shows them all.
 */
final class PipelineChecks {
    static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ISO_LOCAL_DATE.withZone(ZoneOffset.UTC);

    private PipelineChecks() {}

    /** What was observed per session, for test-specific assertions and the log. */
    record SessionOutcome(
            String key,
            int produced,
            int archived,
            int live,
            long applied,
            long failed,
            long truncatedOutputs,
            int truncatedNoticesSeen) {}

    /**
     * Checks that every produced message is in exactly one place (archived once in the dialog, or
     * live in the context), in production order; that token counts are jtokkit's for the served
     * message; that each summary is the worker's latest for its session; that every archived batch
     * is exactly the span of the request it answered; that each compaction request came with its
     * diary request and none was read twice; and that the counters agree with the worker.
     *
     * @param produced session key ({@code tenant/session}) to the envelopes produced, in order
     * @param contexts session name to the context served once settled
     * @param dialog every committed record of the dialog topic
     */
    static List<SessionOutcome> verify(
            Map<String, List<Envelope>> produced,
            Map<String, JsonNode> contexts,
            List<ConsumerRecord<String, byte[]>> dialog,
            TestWorker worker)
            throws InterruptedException {
        List<String> errors = new ArrayList<>();
        worker.awaitCaughtUp(Duration.ofSeconds(15));
        if (!worker.duplicateRequests().isEmpty()) {
            errors.add("requests committed more than once: " + worker.duplicateRequests());
        }

        // A compaction's diary twin covers the part of its span no earlier diary request covered (a
        // retried compaction's span was already sent): a suffix of the span, same request and epoch.
        // Over a session, no message is sent to a diary twice.
        Map<String, LlmRequest> diaries = new HashMap<>();
        Map<String, Set<String>> diarised = new HashMap<>();
        for (LlmRequest diary : worker.requests().stream()
                .filter(r -> r.kind() == LlmKind.DIARY)
                .toList()) {
            if (diaries.put(diary.requestId(), diary) != null) {
                errors.add("two DIARY requests share request id " + diary.requestId());
            }
            Set<String> seen = diarised.computeIfAbsent(
                    diary.dialog().tenant() + "/" + diary.dialog().session(), k -> new HashSet<>());
            for (Message message : diary.dialog().messages()) {
                if (!seen.add(message.id())) {
                    errors.add("message " + message.id() + " was sent to a diary twice");
                }
            }
        }
        for (TestWorker.Answer answer : worker.answers().values()) {
            LlmRequest compact = answer.request();
            LlmRequest diary = diaries.get(compact.requestId());
            if (diary == null) {
                continue;
            }
            int skip = (int) (diary.dialog().fromSeq() - compact.dialog().fromSeq());
            if (diary.dialog().toSeq() != compact.dialog().toSeq()
                    || diary.epoch() != compact.epoch()
                    || skip < 0
                    || !diary.dialog()
                            .messages()
                            .equals(compact.dialog()
                                    .messages()
                                    .subList(skip, compact.dialog().messages().size()))) {
                errors.add("compaction " + compact.requestId()
                        + " has a DIARY request that is not a suffix of its span: "
                        + diary.dialog().fromSeq() + ".."
                        + diary.dialog().toSeq() + " vs " + compact.dialog().fromSeq() + ".."
                        + compact.dialog().toSeq());
            }
        }
        if (diaries.size() > worker.answers().size()) {
            errors.add(
                    diaries.size() + " DIARY requests for " + worker.answers().size() + " COMPACT requests");
        }

        Map<String, List<ArchivedMessage>> archivedBySession = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : dialog) {
            ArchivedMessage archived = read(record.value(), ArchivedMessage.class);
            String key = archived.tenant() + "/" + archived.session();
            if (!key.equals(record.key())) {
                errors.add("dialog record keyed " + record.key() + " holds a message of " + key);
            }
            if (!produced.containsKey(key)) {
                errors.add("dialog holds a message of a session never produced: " + key);
            }
            archivedBySession.computeIfAbsent(key, k -> new ArrayList<>()).add(archived);
            if (!diarised.getOrDefault(key, Set.of())
                    .contains(archived.message().id())) {
                errors.add("archived message " + archived.message().id() + " was never sent to a diary");
            }
        }

        List<SessionOutcome> outcomes = new ArrayList<>();
        for (Map.Entry<String, List<Envelope>> session : produced.entrySet()) {
            outcomes.add(verifySession(
                    session.getKey(),
                    session.getValue(),
                    contexts.get(session.getKey().substring(session.getKey().indexOf('/') + 1)),
                    archivedBySession.getOrDefault(session.getKey(), List.of()),
                    worker,
                    errors));
        }
        if (!errors.isEmpty()) {
            throw new AssertionError(errors.size() + " pipeline invariant(s) violated:\n  "
                    + String.join("\n  ", errors.subList(0, Math.min(40, errors.size()))));
        }
        return outcomes;
    }

    /**
     * Checks only where the messages went, for tests whose worker is not a {@link TestWorker}: every
     * produced message is in exactly one place (archived once in the dialog, or live in the context),
     * seq {@code i} holds the {@code i}-th message produced, and everything archived precedes
     * everything live. Returns the problems found, empty if none.
     *
     * @param produced session key ({@code tenant/session}) to the envelopes produced, in order
     * @param contexts session name to the context served once settled
     * @param dialog every committed record of the dialog topic
     */
    static List<String> placementProblems(
            Map<String, List<Envelope>> produced,
            Map<String, JsonNode> contexts,
            List<ConsumerRecord<String, byte[]>> dialog) {
        List<String> errors = new ArrayList<>();
        Map<String, List<ArchivedMessage>> archivedBySession = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : dialog) {
            ArchivedMessage archived = read(record.value(), ArchivedMessage.class);
            String key = archived.tenant() + "/" + archived.session();
            if (!produced.containsKey(key)) {
                errors.add("dialog holds a message of a session never produced: " + key);
            }
            archivedBySession.computeIfAbsent(key, k -> new ArrayList<>()).add(archived);
        }
        for (Map.Entry<String, List<Envelope>> session : produced.entrySet()) {
            String key = session.getKey();
            JsonNode context = contexts.get(key.substring(key.indexOf('/') + 1));
            if (context == null) {
                errors.add(key + ": no context");
                continue;
            }
            Map<Long, String> bySeq = new TreeMap<>();
            Map<String, Integer> occurrences = new HashMap<>();
            long maxArchivedSeq = -1;
            for (ArchivedMessage message : archivedBySession.getOrDefault(key, List.of())) {
                if (bySeq.put(message.seq(), message.message().id()) != null) {
                    errors.add(key + ": seq " + message.seq() + " archived more than once");
                }
                occurrences.merge(message.message().id(), 1, Integer::sum);
                maxArchivedSeq = Math.max(maxArchivedSeq, message.seq());
            }
            long minLiveSeq = Long.MAX_VALUE;
            for (JsonNode entry : context.path("messages")) {
                long seq = entry.path("seq").asLong();
                String id = entry.path("message").path("id").asText();
                if (bySeq.put(seq, id) != null) {
                    errors.add(key + ": seq " + seq + " is both archived and live (or live twice)");
                }
                occurrences.merge(id, 1, Integer::sum);
                minLiveSeq = Math.min(minLiveSeq, seq);
            }
            if (maxArchivedSeq >= minLiveSeq) {
                errors.add(
                        key + ": archived seq " + maxArchivedSeq + " is not before the first live seq " + minLiveSeq);
            }
            List<Envelope> envelopes = session.getValue();
            for (int i = 0; i < envelopes.size(); i++) {
                String id = envelopes.get(i).id();
                int seen = occurrences.getOrDefault(id, 0);
                if (seen != 1) {
                    errors.add(key + ": message " + id + " found " + seen + " times");
                }
                String atSeq = bySeq.get((long) i);
                if (atSeq != null && !atSeq.equals(id)) {
                    errors.add(
                            key + ": seq " + i + " holds " + atSeq + " but the " + i + "th message produced is " + id);
                }
            }
            if (occurrences.size() != envelopes.size()) {
                errors.add(key + ": " + occurrences.size() + " distinct messages observed, " + envelopes.size()
                        + " produced");
            }
        }
        return errors;
    }

    private static SessionOutcome verifySession(
            String key,
            List<Envelope> produced,
            JsonNode context,
            List<ArchivedMessage> archived,
            TestWorker worker,
            List<String> errors) {
        if (context == null) {
            errors.add(key + ": no context");
            return new SessionOutcome(key, produced.size(), archived.size(), 0, 0, 0, 0, 0);
        }
        // Where each message ended up: seq -> id, and how often each id was seen anywhere.
        Map<Long, String> bySeq = new TreeMap<>();
        Map<String, Integer> occurrences = new LinkedHashMap<>();
        int truncatedNotices = 0;
        long maxArchivedSeq = -1;
        for (ArchivedMessage message : archived) {
            if (bySeq.put(message.seq(), message.message().id()) != null) {
                errors.add(key + ": seq " + message.seq() + " archived more than once");
            }
            occurrences.merge(message.message().id(), 1, Integer::sum);
            maxArchivedSeq = Math.max(maxArchivedSeq, message.seq());
            truncatedNotices += truncatedOutputs(message.message());
            String day = DAY.format(message.message().time());
            if (!day.equals(message.date())) {
                errors.add(key + ": archived " + message.message().id() + " dated " + message.date() + ", not " + day);
            }
        }

        long tokenSum = 0;
        long minLiveSeq = Long.MAX_VALUE;
        JsonNode live = context.path("messages");
        for (JsonNode entry : live) {
            long seq = entry.path("seq").asLong();
            Message message = tree(entry.path("message"), Message.class);
            if (bySeq.put(seq, message.id()) != null) {
                errors.add(key + ": seq " + seq + " is both archived and live (or live twice)");
            }
            occurrences.merge(message.id(), 1, Integer::sum);
            minLiveSeq = Math.min(minLiveSeq, seq);
            truncatedNotices += truncatedOutputs(message);
            int expectedTokens = TOKENS.count(message);
            if (entry.path("tokens").asInt(-1) != expectedTokens) {
                errors.add(key + ": live seq " + seq + " claims " + entry.path("tokens") + " tokens, jtokkit counts "
                        + expectedTokens);
            }
            tokenSum += entry.path("tokens").asLong();
        }
        if (maxArchivedSeq >= minLiveSeq) {
            errors.add(key + ": archived seq " + maxArchivedSeq + " is not before the first live seq " + minLiveSeq);
        }

        // Every produced message exactly once, and seq i is the i-th produced message.
        for (int i = 0; i < produced.size(); i++) {
            String id = produced.get(i).id();
            int seen = occurrences.getOrDefault(id, 0);
            if (seen != 1) {
                errors.add(key + ": message " + id + " found " + seen + " times (archived " + count(archived, id)
                        + ", live " + (seen - count(archived, id)) + ")");
            }
            String atSeq = bySeq.get((long) i);
            if (atSeq != null && !atSeq.equals(id)) {
                errors.add(key + ": seq " + i + " holds " + atSeq + " but the " + i + "th message produced is " + id);
            }
        }
        if (occurrences.size() != produced.size()) {
            errors.add(
                    key + ": " + occurrences.size() + " distinct messages observed, " + produced.size() + " produced");
        }

        JsonNode tokens = context.path("tokens");
        String summary = context.path("summary").asText();
        if (tokens.path("messages").asLong() != tokenSum) {
            errors.add(key + ": tokens.messages " + tokens.path("messages") + " != sum of live message tokens "
                    + tokenSum);
        }
        if (tokens.path("summary").asLong() != TOKENS.count(summary)) {
            errors.add(
                    key + ": tokens.summary " + tokens.path("summary") + " != jtokkit count " + TOKENS.count(summary));
        }
        if (tokens.path("total").asLong() != tokenSum + TOKENS.count(summary)) {
            errors.add(key + ": tokens.total " + tokens.path("total") + " != messages + summary");
        }
        if (!summary.equals(worker.latestSummary(key))) {
            errors.add(key + ": summary is not the worker's latest: " + abbreviate(summary) + " vs "
                    + abbreviate(worker.latestSummary(key)));
        }

        // Each archived batch is exactly the span of an OK answer's request, in order.
        Map<String, List<ArchivedMessage>> batches = new LinkedHashMap<>();
        archived.forEach(m -> batches.computeIfAbsent(m.summaryRequestId(), k -> new ArrayList<>())
                .add(m));
        Map<String, TestWorker.Answer> answers = new HashMap<>();
        worker.answersFor(key).forEach(a -> answers.put(a.request().requestId(), a));
        for (Map.Entry<String, List<ArchivedMessage>> batch : batches.entrySet()) {
            TestWorker.Answer answer = answers.get(batch.getKey());
            if (answer == null || !answer.ok()) {
                errors.add(key + ": " + batch.getValue().size() + " messages archived under request " + batch.getKey()
                        + " which the worker " + (answer == null ? "never saw" : "failed"));
                continue;
            }
            List<String> requested = answer.request().dialog().messages().stream()
                    .map(Message::id)
                    .toList();
            List<String> archivedIds =
                    batch.getValue().stream().map(m -> m.message().id()).toList();
            if (!requested.equals(archivedIds)) {
                errors.add(
                        key + ": request " + batch.getKey() + " covered " + requested + " but archived " + archivedIds);
            }
        }
        long ok = answers.values().stream().filter(TestWorker.Answer::ok).count();
        long failed = answers.size() - ok;
        if (batches.size() != ok) {
            errors.add(key + ": " + ok + " OK answers but " + batches.size() + " archived batches");
        }

        JsonNode counters = context.path("compaction").path("counters");
        expectCounter(errors, key, counters, "MESSAGES", produced.size());
        expectCounter(errors, key, counters, "COMPACTIONS_REQUESTED", answers.size());
        expectCounter(errors, key, counters, "COMPACTIONS_APPLIED", ok);
        expectCounter(errors, key, counters, "COMPACTIONS_FAILED", failed);
        expectCounter(errors, key, counters, "STALE_RESULTS", 0);
        expectCounter(errors, key, counters, "DUPLICATE_RESULTS", 0);
        expectCounter(errors, key, counters, "DUPLICATE_MESSAGES", 0);
        if (context.path("summaryVersion").asLong() != ok) {
            errors.add(
                    key + ": summaryVersion " + context.path("summaryVersion") + " but " + ok + " summaries applied");
        }
        return new SessionOutcome(
                key,
                produced.size(),
                archived.size(),
                live.size(),
                ok,
                failed,
                counters.path("TRUNCATED_OUTPUTS").asLong(),
                truncatedNotices);
    }

    private static void expectCounter(List<String> errors, String key, JsonNode counters, String name, long expected) {
        long actual = counters.path(name).asLong(0);
        if (actual != expected) {
            errors.add(key + ": counter " + name + " is " + actual + ", expected " + expected);
        }
    }

    private static int truncatedOutputs(Message message) {
        int n = 0;
        for (Block block : message.content()) {
            if (block instanceof Block.ToolResult result && ToolResultTruncator.isTruncated(result.output())) {
                n++;
            }
        }
        return n;
    }

    private static long count(List<ArchivedMessage> archived, String id) {
        return archived.stream()
                .filter(m -> Objects.equals(m.message().id(), id))
                .count();
    }

    private static String abbreviate(String text) {
        String flat = text.replace('\n', ' ');
        return flat.length() <= 80 ? "'" + flat + "'" : "'" + flat.substring(0, 80) + "...'";
    }

    static <T> T read(byte[] json, Class<T> type) {
        try {
            return Json.MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <T> T tree(JsonNode json, Class<T> type) {
        try {
            return Json.MAPPER.treeToValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
