package io.reme.prometheus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmStatus;
import io.reme.metrics.PipelineMetrics.CallOutcome;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/** The LLM workers' calls (each attempt, timed) and answered requests, every series present at zero from start-up. */
final class LlmMeters {
    private static final Duration[] BUCKETS = PrometheusMetrics.seconds(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120);

    private final Map<LlmKind, Map<CallOutcome, Timer>> calls = new EnumMap<>(LlmKind.class);
    private final Map<LlmKind, Map<LlmStatus, Counter>> requests = new EnumMap<>(LlmKind.class);

    LlmMeters(MeterRegistry registry) {
        for (LlmKind kind : LlmKind.values()) {
            Map<CallOutcome, Timer> byOutcome = new EnumMap<>(CallOutcome.class);
            for (CallOutcome outcome : CallOutcome.values()) {
                byOutcome.put(
                        outcome,
                        Timer.builder("reme.llm.calls")
                                .description("Calls to the LLM provider (each attempt), by kind and outcome")
                                .tag("kind", kind.name())
                                .tag("outcome", outcome.name())
                                .serviceLevelObjectives(BUCKETS)
                                .register(registry));
            }
            calls.put(kind, byOutcome);
            Map<LlmStatus, Counter> byStatus = new EnumMap<>(LlmStatus.class);
            for (LlmStatus status : LlmStatus.values()) {
                byStatus.put(
                        status,
                        Counter.builder("reme.llm.requests")
                                .description(
                                        "LLM requests answered on llm.results after all attempts, by kind and status")
                                .tag("kind", kind.name())
                                .tag("status", status.name())
                                .register(registry));
            }
            requests.put(kind, byStatus);
        }
    }

    void call(LlmKind kind, CallOutcome outcome, long nanos) {
        calls.get(kind).get(outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    void request(LlmKind kind, LlmStatus status) {
        requests.get(kind).get(status).increment();
    }

    /** LLM requests answered since start, by kind, then status. */
    Map<String, Map<String, Long>> requestCounts() {
        Map<String, Map<String, Long>> answered = new TreeMap<>();
        requests.forEach((kind, byStatus) -> {
            Map<String, Long> counts = new TreeMap<>();
            byStatus.forEach((status, counter) -> counts.put(status.name(), Math.round(counter.count())));
            answered.put(kind.name(), counts);
        });
        return answered;
    }

    /** LLM calls since start, by kind, then outcome. */
    Map<String, Map<String, Long>> callCounts() {
        Map<String, Map<String, Long>> attempts = new TreeMap<>();
        calls.forEach((kind, byOutcome) -> {
            Map<String, Long> counts = new TreeMap<>();
            byOutcome.forEach((outcome, timer) -> counts.put(outcome.name(), timer.count()));
            attempts.put(kind.name(), counts);
        });
        return attempts;
    }
}
