package io.reme.app;

import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.llm.LlmStatus;
import io.reme.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** The integration tests' view of the LLM topics: what was asked of the workers and what they answered. */
final class LlmRecords {
    private LlmRecords() {}

    /** Requests and results read as committed; results are grouped by {@code KIND/requestId}. */
    record Exchange(List<LlmRequest> requests, Map<String, List<LlmResult>> results) {
        List<LlmRequest> requests(LlmKind kind) {
            return requests.stream().filter(r -> r.kind() == kind).toList();
        }

        List<LlmResult> resultsOf(LlmRequest request) {
            return results.getOrDefault(id(request), List.of());
        }

        /** Requests of {@code kind} with no result, or with more than one. */
        List<String> notAnsweredExactlyOnce(LlmKind kind) {
            List<String> problems = new ArrayList<>();
            for (LlmRequest request : requests(kind)) {
                int answers = resultsOf(request).size();
                if (answers != 1) {
                    problems.add(id(request) + " (" + request.dialog().tenant() + "/"
                            + request.dialog().session() + " epoch " + request.epoch() + ") has " + answers
                            + " results");
                }
            }
            return problems;
        }

        long count(LlmKind kind, LlmStatus status) {
            return requests(kind).stream()
                    .flatMap(r -> resultsOf(r).stream())
                    .filter(r -> r.status() == status)
                    .count();
        }
    }

    static String id(LlmRequest request) {
        return request.kind() + "/" + request.requestId();
    }

    static String id(LlmResult result) {
        return result.kind() + "/" + result.requestId();
    }

    /**
     * Reads every request committed so far, then the results until each request has at least one
     * (or {@code timeout} passes; the caller then sees which are missing).
     */
    static Exchange await(String bootstrap, Topics topics, Duration timeout) {
        List<LlmRequest> requests = new ArrayList<>();
        Map<String, LlmRequest> distinct = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> record :
                TestKafka.readCommitted(bootstrap, topics.llmRequests(), 0, Duration.ofSeconds(15))) {
            LlmRequest request = PipelineChecks.read(record.value(), LlmRequest.class);
            requests.add(request);
            distinct.put(id(request), request);
        }
        AtomicReference<Map<String, List<LlmResult>>> results = new AtomicReference<>();
        try {
            Awaitility.await("a result for every request")
                    .atMost(timeout)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        results.set(results(bootstrap, topics));
                        return distinct.keySet().stream().allMatch(results.get()::containsKey);
                    });
        } catch (ConditionTimeoutException e) {
            // The caller sees which are missing.
        }
        return new Exchange(requests, results.get());
    }

    private static Map<String, List<LlmResult>> results(String bootstrap, Topics topics) {
        Map<String, List<LlmResult>> results = new TreeMap<>();
        for (ConsumerRecord<String, byte[]> record :
                TestKafka.readCommitted(bootstrap, topics.llmResults(), 0, Duration.ofSeconds(15))) {
            LlmResult result = PipelineChecks.read(record.value(), LlmResult.class);
            results.computeIfAbsent(id(result), k -> new ArrayList<>()).add(result);
        }
        return results;
    }
}
