package io.reme.prometheus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The MCP server's tool calls, by tool and outcome, every series present at zero from start-up. */
final class McpMeters {
    private final MeterRegistry registry;
    private final Map<String, Map<Boolean, Counter>> calls = new ConcurrentHashMap<>();

    McpMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    void tools(Collection<String> tools) {
        for (String tool : tools) {
            calls.computeIfAbsent(tool, name -> Map.of(false, counter(name, "ok"), true, counter(name, "error")));
        }
    }

    void call(String tool, boolean failed) {
        Map<Boolean, Counter> counters = calls.get(tool);
        if (counters != null) {
            counters.get(failed).increment();
        }
    }

    private Counter counter(String tool, String outcome) {
        return Counter.builder("reme.mcp.tool.calls")
                .description("MCP tool calls answered, by tool and outcome (error: a tool error result)")
                .tag("tool", tool)
                .tag("outcome", outcome)
                .register(registry);
    }
}
