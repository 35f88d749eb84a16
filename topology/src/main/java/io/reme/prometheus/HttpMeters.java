package io.reme.prometheus;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The API's answers: each request by route and status class, and each search from request to merged answer. The
 * search timers exist from start-up; a route's timer appears with its first answer of a status class.
 */
final class HttpMeters {
    private static final Duration[] SEARCH_BUCKETS =
            PrometheusMetrics.seconds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5);
    private static final Duration[] REQUEST_BUCKETS =
            PrometheusMetrics.seconds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10);

    private final MeterRegistry registry;
    private final Map<Boolean, Timer> searches;
    /** By route template and status class; bounded by the API's route table and five classes. */
    private final Map<String, Timer> requests = new ConcurrentHashMap<>();

    HttpMeters(MeterRegistry registry) {
        this.registry = registry;
        searches = Map.of(false, searchTimer(false), true, searchTimer(true));
    }

    private Timer searchTimer(boolean partial) {
        return Timer.builder("reme.search")
                .description("POST /v1/search, from request to merged answer")
                .tag("partial", Boolean.toString(partial))
                .serviceLevelObjectives(SEARCH_BUCKETS)
                .register(registry);
    }

    void search(long nanos, boolean partial) {
        searches.get(partial).record(nanos, TimeUnit.NANOSECONDS);
    }

    void request(String route, int status, long nanos) {
        String statusClass = (status / 100) + "xx";
        requests.computeIfAbsent(
                        route + " " + statusClass,
                        key -> Timer.builder("reme.http.requests")
                                .description(
                                        "API requests, from their first bytes to their answer, by route and status class")
                                .tag("route", route)
                                .tag("status", statusClass)
                                .serviceLevelObjectives(REQUEST_BUCKETS)
                                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }
}
