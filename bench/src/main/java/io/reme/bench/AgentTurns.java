package io.reme.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The agent sessions the fault benches play: each turn a user asks, the assistant calls a tool, the
 * tool answers (now and then with a large output, to be cut) and the assistant replies. Every message
 * carries its id as a marker ({@code [soak:<id>]}, {@link LocalChatServer#MARKER}), so a diary line or a
 * dead letter can be traced back to it.
 */
final class AgentTurns {
    private static final String[] WORDS = {
        "offset",
        "partition",
        "retry",
        "timeout",
        "config",
        "deploy",
        "latency",
        "window",
        "summary",
        "budget",
        "tenant",
        "decision",
        "constraint",
        "progress",
        "blocked",
        "error"
    };

    private AgentTurns() {}

    /** The four messages of turn {@code turn} of a session, with ids {@code <session>-t<turn>-<i>}. */
    static List<ObjectNode> turn(String tenant, String session, String user, int turn, Random rnd) {
        String callId = "call_" + session + "_" + turn;
        List<ObjectNode> messages = new ArrayList<>(4);
        ObjectNode ask = Json.MAPPER.createObjectNode().put("role", "user");
        ObjectNode call = Json.MAPPER.createObjectNode().put("role", "assistant");
        ArrayNode calls = call.putArray("tool_calls");
        calls.addObject()
                .put("id", callId)
                .put("type", "function")
                .putObject("function")
                .put("name", "read_file")
                .put("arguments", "{\"path\":\"/srv/app/module" + turn % 7 + "/Service.java\"}");
        ObjectNode result = Json.MAPPER
                .createObjectNode()
                .put("role", "tool")
                .put("tool_call_id", callId)
                .put("name", "read_file");
        ObjectNode answer = Json.MAPPER.createObjectNode().put("role", "assistant");
        messages.addAll(List.of(ask, call, result, answer));
        Instant now = Instant.now();
        for (int i = 0; i < messages.size(); i++) {
            String id = session + "-t" + turn + "-" + i;
            String marker = "[soak:" + id + "]";
            String text = switch (i) {
                case 0 -> marker + " Turn " + turn + ": please look at module " + turn % 7 + " " + words(rnd, 30);
                case 1 -> marker + " Reading the module.";
                case 2 -> marker + "\n" + lines(rnd, rnd.nextInt(10) == 0 ? 16_000 : 300 + rnd.nextInt(4000));
                default -> marker + " Done with turn " + turn + ". " + words(rnd, 40);
            };
            messages.get(i)
                    .put("content", text)
                    .put("tenant", tenant)
                    .put("session", session)
                    .put("user", user)
                    .put("id", id)
                    .put("time", now.plusMillis(i).toString());
        }
        return messages;
    }

    static String words(Random rnd, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        return text.toString();
    }

    private static String lines(Random rnd, int bytes) {
        StringBuilder text = new StringBuilder(bytes + 80);
        for (int line = 1; text.length() < bytes; line++) {
            text.append(line).append(": ").append(words(rnd, 10)).append('\n');
        }
        return text.toString();
    }
}
