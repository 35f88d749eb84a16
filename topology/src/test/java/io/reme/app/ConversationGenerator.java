package io.reme.app;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Deterministic synthetic agent conversations: turns of a user request, an assistant tool call in
 * the OpenAI shape, the tool's output (sometimes large enough to be truncated), and an answer.
 * Used by the ingest benchmark and the integration tests so both replay the same shape of load.
 */
public final class ConversationGenerator {
    private static final String[] WORDS = ("the consumer group rebalance partition offset commit retry timeout "
                    + "config file path error stack trace deploy service latency throughput window summary token budget "
                    + "memory session tenant user request result decision constraint progress blocked next step")
            .split(" ");

    private final Random random;
    private final int largeOutputEvery;
    private final int largeOutputBytes;

    /**
     * @param largeOutputEvery every n-th tool output is large (0 = never)
     * @param largeOutputBytes size of a large output
     */
    public ConversationGenerator(long seed, int largeOutputEvery, int largeOutputBytes) {
        this.random = new Random(seed);
        this.largeOutputEvery = largeOutputEvery;
        this.largeOutputBytes = largeOutputBytes;
    }

    /** One produced record: key {@code tenant/session} and the JSON envelope. */
    public record Envelope(String key, byte[] value, String role, String id) {}

    /** {@code count} messages of one session, in order, four per turn; times start at {@code start}, 1 s apart. */
    public List<Envelope> session(String tenant, String session, String user, int count, Instant start) {
        List<Envelope> out = new ArrayList<>(count);
        int turn = 0;
        while (out.size() < count) {
            String callId = "call_" + session + "_" + turn;
            int i = out.size();
            add(out, tenant, session, user, i, start, user(turn));
            if (out.size() < count) {
                add(out, tenant, session, user, i + 1, start, toolCall(callId, turn));
            }
            if (out.size() < count) {
                add(out, tenant, session, user, i + 2, start, toolOutput(callId, turn));
            }
            if (out.size() < count) {
                add(out, tenant, session, user, i + 3, start, answer(turn));
            }
            turn++;
        }
        return out;
    }

    private void add(
            List<Envelope> out,
            String tenant,
            String session,
            String user,
            int index,
            Instant start,
            ObjectNode message) {
        String id = session + "-m" + index;
        message.put("tenant", tenant)
                .put("session", session)
                .put("user", user)
                .put("id", id)
                .put("time", start.plusSeconds(index).toString());
        try {
            out.add(new Envelope(
                    tenant + "/" + session,
                    Json.MAPPER.writeValueAsBytes(message),
                    message.get("role").asText(),
                    id));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ObjectNode user(int turn) {
        return Json.MAPPER
                .createObjectNode()
                .put("role", "user")
                .put("content", "Turn " + turn + ": please look at " + sentence(20 + random.nextInt(60)));
    }

    private ObjectNode toolCall(String callId, int turn) {
        ObjectNode message = Json.MAPPER.createObjectNode().put("role", "assistant");
        message.putNull("content");
        ArrayNode calls = message.putArray("tool_calls");
        ObjectNode call = calls.addObject().put("id", callId).put("type", "function");
        call.putObject("function")
                .put("name", "read_file")
                .put("arguments", "{\"path\":\"/srv/app/module" + turn % 17 + "/Service.java\"}");
        return message;
    }

    private ObjectNode toolOutput(String callId, int turn) {
        boolean large = largeOutputEvery > 0 && turn % largeOutputEvery == largeOutputEvery - 1;
        String output = large ? lines(largeOutputBytes) : lines(200 + random.nextInt(6000));
        return Json.MAPPER
                .createObjectNode()
                .put("role", "tool")
                .put("tool_call_id", callId)
                .put("name", "read_file")
                .put("content", output);
    }

    private ObjectNode answer(int turn) {
        return Json.MAPPER
                .createObjectNode()
                .put("role", "assistant")
                .put("content", "Done with turn " + turn + ". " + sentence(30 + random.nextInt(80)));
    }

    private String sentence(int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.append('.').toString();
    }

    private String lines(int bytes) {
        StringBuilder text = new StringBuilder(bytes + 100);
        int line = 1;
        while (text.length() < bytes) {
            text.append(line++)
                    .append(": ")
                    .append(sentence(8 + random.nextInt(8)))
                    .append('\n');
        }
        return text.toString();
    }
}
