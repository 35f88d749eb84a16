package io.reme.prometheus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reme.metrics.PipelineMetrics.Compaction;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The series labelled by tenant: messages and tokens in, compactions, requests refused for a quota. The label is
 * bounded: tenants on the allow-list get their own value, every other tenant counts as
 * {@value PrometheusMetrics#OTHER_TENANT}.
 */
final class TenantMeters {
    /** One tenant label's series. */
    private record Label(
            Counter messages, Counter tokens, Map<Compaction, Counter> compactions, Map<String, Counter> throttled) {}

    private final MeterRegistry registry;
    private final Map<String, Label> labelled;
    private final Label other;

    TenantMeters(MeterRegistry registry, Set<String> labelledTenants) {
        this.registry = registry;
        Map<String, Label> byTenant = new HashMap<>();
        for (String tenant : new TreeSet<>(labelledTenants)) {
            byTenant.put(tenant, label(tenant));
        }
        labelled = Map.copyOf(byTenant);
        other = labelled.containsKey(PrometheusMetrics.OTHER_TENANT)
                ? labelled.get(PrometheusMetrics.OTHER_TENANT)
                : label(PrometheusMetrics.OTHER_TENANT);
    }

    private Label label(String label) {
        Map<Compaction, Counter> compactions = new EnumMap<>(Compaction.class);
        for (Compaction event : Compaction.values()) {
            compactions.put(
                    event,
                    Counter.builder("reme.compactions")
                            .description("Compactions of session windows, by what happened")
                            .tag("tenant", label)
                            .tag("event", event.name().toLowerCase(Locale.ROOT))
                            .register(registry));
        }
        Map<String, Counter> throttled = new HashMap<>();
        for (String quota : PrometheusMetrics.QUOTAS) {
            throttled.put(
                    quota,
                    Counter.builder("reme.http.throttled")
                            .description("HTTP requests refused with 429 because the tenant was past a quota")
                            .tag("tenant", label)
                            .tag("quota", quota)
                            .register(registry));
        }
        return new Label(
                Counter.builder("reme.messages.in")
                        .description("Valid messages appended to their session's window")
                        .tag("tenant", label)
                        .register(registry),
                Counter.builder("reme.tokens.counted")
                        .description("Tokens of the messages appended, as counted on arrival")
                        .tag("tenant", label)
                        .register(registry),
                compactions,
                Map.copyOf(throttled));
    }

    private Label of(String tenant) {
        return labelled.getOrDefault(tenant, other);
    }

    void messageIn(String tenant, int tokens) {
        Label meters = of(tenant);
        meters.messages().increment();
        meters.tokens().increment(tokens);
    }

    void compaction(String tenant, Compaction event) {
        of(tenant).compactions().get(event).increment();
    }

    void throttled(String tenant, String quota) {
        Counter counter = of(tenant).throttled().get(quota);
        if (counter == null) {
            throw new IllegalArgumentException("unknown quota " + quota);
        }
        counter.increment();
    }

    /** Every label's series, the shared {@value PrometheusMetrics#OTHER_TENANT} one included once. */
    private List<Label> all() {
        List<Label> all = new ArrayList<>(labelled.values());
        if (!labelled.containsValue(other)) {
            all.add(other);
        }
        return all;
    }

    /** Compactions since start, by event, summed over tenants. */
    Map<String, Long> compactionCounts() {
        Map<String, Long> compacted = new TreeMap<>();
        for (Label meters : all()) {
            meters.compactions()
                    .forEach((event, counter) -> compacted.merge(
                            event.name().toLowerCase(Locale.ROOT), Math.round(counter.count()), Long::sum));
        }
        return compacted;
    }

    /** Messages in since start, summed over tenants. */
    long messagesIn() {
        long messages = 0;
        for (Label meters : all()) {
            messages += Math.round(meters.messages().count());
        }
        return messages;
    }
}
