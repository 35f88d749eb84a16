package io.reme.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.dlq.DlqReason;
import io.reme.dlq.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MessageParserTest {
    private final MessageParser parser = new MessageParser(64 * 1024);

    private Message parse(String json) {
        return parse("acme/s1", json);
    }

    private Message parse(String key, String json) {
        return parser.parse(
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8),
                1_000L,
                "fallback-id");
    }

    private static String envelope(String rest) {
        return "{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u1\"," + rest + "}";
    }

    private DlqReason rejection(String key, String json) {
        return assertThrows(InvalidInputException.class, () -> parse(key, json)).reason();
    }

    @Test
    void openAiStringContent() {
        Message m = parse(envelope(
                "\"id\":\"m1\",\"role\":\"user\",\"content\":\"hello\",\"time\":\"2026-11-30T10:00:00+01:00\""));
        assertEquals("m1", m.id());
        assertEquals(Role.USER, m.role());
        assertEquals(List.of(new Block.Text("hello")), m.content());
        assertEquals(Instant.parse("2026-11-30T09:00:00Z"), m.time());
        assertTrue(m.startsTurn());
    }

    @Test
    void defaultsIdAndTimeFromTheRecord() {
        Message m = parse(envelope("\"role\":\"user\",\"content\":\"hello\""));
        assertEquals("fallback-id", m.id());
        assertEquals(Instant.ofEpochMilli(1_000L), m.time());
        Message millis = parse(envelope("\"role\":\"user\",\"content\":\"x\",\"time\":1764496800000"));
        assertEquals(Instant.ofEpochMilli(1764496800000L), millis.time());
    }

    @Test
    void openAiToolCallsAndToolMessage() {
        Message call = parse(envelope("\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"think\","
                + "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
                + "\"arguments\":\"{\\\"path\\\":\\\"/a\\\"}\"}},{\"id\":\"c2\",\"type\":\"function\","
                + "\"function\":{\"name\":\"ls\",\"arguments\":{\"dir\":\"/\"}}}]"));
        assertEquals(
                List.of(
                        new Block.Thinking("think"),
                        new Block.ToolUse("c1", "read_file", "{\"path\":\"/a\"}"),
                        new Block.ToolUse("c2", "ls", "{\"dir\":\"/\"}")),
                call.content());
        assertEquals(Set.of("c1", "c2"), call.toolUseIds());
        assertFalse(call.startsTurn());

        Message result = parse(
                envelope("\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":\"read_file\",\"content\":\"data\""));
        assertEquals(List.of(new Block.ToolResult("c1", "read_file", "data")), result.content());
        assertEquals(Set.of("c1"), result.toolResultIds());
    }

    @Test
    void openAiPartsAndToolMessageWithParts() {
        Message m = parse(envelope("\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"see\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/y.png\"}}]"));
        assertEquals(List.of(new Block.Text("see"), new Block.Image("https://x/y.png", null, null)), m.content());
        Message tool = parse(
                envelope("\"role\":\"tool\",\"tool_call_id\":\"c9\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                        + "{\"type\":\"text\",\"text\":\"b\"}]"));
        assertEquals("a\nb", ((Block.ToolResult) tool.content().get(0)).output());
    }

    @Test
    void blockStyleContent() {
        Message m = parse(envelope("\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
                + "{\"type\":\"text\",\"text\":\"calling\"},{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"grep\","
                + "\"input\":{\"pattern\":\"x\"}}]"));
        assertEquals(
                List.of(
                        new Block.Thinking("hmm"),
                        new Block.Text("calling"),
                        new Block.ToolUse("t1", "grep", "{\"pattern\":\"x\"}")),
                m.content());

        Message results = parse(
                envelope(
                        "\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"id\":\"t1\","
                                + "\"name\":\"grep\",\"output\":[{\"type\":\"text\",\"text\":\"line\"},{\"type\":\"image\","
                                + "\"source\":{\"type\":\"url\",\"url\":\"https://i\"}},{\"type\":\"file\",\"name\":\"f\",\"path\":\"/p\"}]}]"));
        assertEquals(
                "line\n[image] https://i\n[file] f: /p",
                ((Block.ToolResult) results.content().get(0)).output());
        assertFalse(results.startsTurn(), "a user message carrying tool results does not open a turn");

        Message image =
                parse(envelope("\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\","
                        + "\"media_type\":\"image/png\",\"data\":\"iVBOR\"}}]"));
        assertEquals(
                new Block.Image(null, "image/png", "iVBOR"), image.content().get(0));
        assertInstanceOf(Block.Image.class, image.content().get(0));
    }

    @Test
    void rejectsTooLargeBeforeParsing() {
        MessageParser small = new MessageParser(100);
        String json = envelope("\"role\":\"user\",\"content\":\"" + "x".repeat(200) + "\"");
        InvalidInputException e = assertThrows(
                InvalidInputException.class,
                () -> small.parse(
                        "acme/s1".getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8), 0, "x"));
        assertEquals(DlqReason.TOO_LARGE, e.reason());
        assertTrue(e.getMessage().contains("limit is 100"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "acme/s1|not json|MALFORMED_JSON",
                "acme/s1|[1,2]|MALFORMED_JSON",
                "acme/s1|{\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\"}|MISSING_FIELD",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"role\":\"user\",\"content\":\"x\"}|MISSING_FIELD",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"content\":\"x\"}|MISSING_FIELD",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\"}|MISSING_FIELD",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"tool\",\"content\":\"x\"}|MISSING_FIELD",
                "a/b/s1|{\"tenant\":\"a/b\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\"}|INVALID_ID",
                "../s1|{\"tenant\":\"..\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\"}|INVALID_ID",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"ü\",\"role\":\"user\",\"content\":\"x\"}|INVALID_ID",
                "acme/s2|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\"}|KEY_MISMATCH",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"robot\",\"content\":\"x\"}|INVALID_ROLE",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"video\"}]}|INVALID_CONTENT",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"output\":\"x\"}]}|INVALID_CONTENT",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":{\"a\":1}}|INVALID_CONTENT",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\"}]}|INVALID_CONTENT",
                "acme/s1|{\"tenant\":\"acme\",\"session\":\"s1\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\",\"time\":\"yesterday\"}|INVALID_TIME",
            })
    void rejectsEachClassOfBadInput(String key, String json, DlqReason expected) {
        assertEquals(expected, rejection(key, json));
    }

    @Test
    void rejectsMissingKeyAndLongIds() {
        assertEquals(DlqReason.KEY_MISMATCH, rejection(null, envelope("\"role\":\"user\",\"content\":\"x\"")));
        String longId = "s".repeat(65);
        assertEquals(
                DlqReason.INVALID_ID,
                rejection(
                        "acme/" + longId,
                        "{\"tenant\":\"acme\",\"session\":\"" + longId
                                + "\",\"user\":\"u\",\"role\":\"user\",\"content\":\"x\"}"));
    }

    private static final long NOW_MS = Instant.parse("2026-12-01T10:00:00Z").toEpochMilli();
    private final MessageParser bounded = new MessageParser(64 * 1024, TimeBounds.DEFAULT);

    private InvalidInputException timeRefusal(String json, long recordTimeMs) {
        InvalidInputException e = assertThrows(
                InvalidInputException.class,
                () -> bounded.parse(
                        "acme/s1".getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8),
                        recordTimeMs,
                        NOW_MS,
                        "fallback-id"));
        assertEquals(DlqReason.INVALID_TIME, e.reason(), e.getMessage());
        return e;
    }

    private Message parseBounded(String json, long recordTimeMs) {
        return bounded.parse(
                "acme/s1".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8),
                recordTimeMs,
                NOW_MS,
                "fallback-id");
    }

    @Test
    void timesOutsideTheBoundsAreRefusedWithAReason() {
        String farFuture = envelope("\"role\":\"user\",\"content\":\"x\",\"time\":\"9999-12-31T00:00:00Z\"");
        assertTrue(
                timeRefusal(farFuture, NOW_MS).getMessage().startsWith("time 9999-12-31T00:00:00Z is more than PT24H"));
        String twoDays = envelope("\"role\":\"user\",\"content\":\"x\",\"time\":" + (NOW_MS + 2 * 86_400_000L));
        timeRefusal(twoDays, NOW_MS);
        String before2000 = envelope("\"role\":\"user\",\"content\":\"x\",\"time\":\"1999-12-31T23:59:59Z\"");
        assertTrue(timeRefusal(before2000, NOW_MS).getMessage().contains("before 2000-01-01T00:00:00Z"));

        // No time: the record timestamp is the message's time, and is bounded as such.
        String noTime = envelope("\"role\":\"user\",\"content\":\"x\"");
        assertTrue(timeRefusal(noTime, 1_000L).getMessage().contains("the record timestamp"));
        // A good time on a record whose timestamp is out of bounds: the session's clock would be.
        String good = envelope("\"role\":\"user\",\"content\":\"x\",\"time\":\"2026-12-01T09:00:00Z\"");
        assertTrue(timeRefusal(good, NOW_MS + 3 * 86_400_000L).getMessage().startsWith("record timestamp"));

        // Within a day ahead and any time since 2000 are accepted as they are.
        assertEquals(
                Instant.ofEpochMilli(NOW_MS + 23 * 3_600_000L),
                parseBounded(
                                envelope("\"role\":\"user\",\"content\":\"x\",\"time\":" + (NOW_MS + 23 * 3_600_000L)),
                                NOW_MS)
                        .time());
        assertEquals(
                Instant.parse("2000-01-01T00:00:00Z"),
                parseBounded(envelope("\"role\":\"user\",\"content\":\"x\",\"time\":\"2000-01-01T00:00:00Z\""), NOW_MS)
                        .time());
        assertEquals(
                Instant.ofEpochMilli(NOW_MS - 1),
                parseBounded(noTime, NOW_MS - 1).time());
    }

    @Test
    void epochMillisecondsBeyondALongAreRefusedNotWrapped() {
        assertEquals(
                DlqReason.INVALID_TIME,
                rejection("acme/s1", envelope("\"role\":\"user\",\"content\":\"x\",\"time\":99999999999999999999")));
    }

    @Test
    void timeBoundsValidateAndSaturate() {
        assertThrows(IllegalArgumentException.class, () -> new TimeBounds(Instant.EPOCH, Duration.ofSeconds(-1)));
        assertNull(TimeBounds.NONE.problem("time", Instant.MAX, Long.MAX_VALUE));
        assertNull(TimeBounds.NONE.problem("time", Instant.MIN, 0));
        assertNotNull(new TimeBounds(Instant.EPOCH, Duration.ofDays(1)).problem("time", Instant.MAX, Long.MAX_VALUE));
    }

    @Test
    void toolArgumentsThatAreNotJsonAreKeptVerbatimInBothShapes() {
        // OpenAI shape: function.arguments is a string meant to hold JSON; whatever it holds is kept.
        Message openAi = parse(envelope("\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                + "\"function\":{\"name\":\"run\",\"arguments\":\"ls -la {\"}}]"));
        assertEquals(List.of(new Block.ToolUse("c1", "run", "ls -la {")), openAi.content());
        // Block style: input should be an object; a string is kept as the text it is, not re-quoted as JSON.
        Message blocks = parse(envelope("\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c2\","
                + "\"name\":\"run\",\"input\":\"ls -la {\"},{\"type\":\"tool_use\",\"id\":\"c3\",\"name\":\"run\","
                + "\"input\":[1,2]}]"));
        assertEquals(
                List.of(new Block.ToolUse("c2", "run", "ls -la {"), new Block.ToolUse("c3", "run", "[1,2]")),
                blocks.content());
        // And the transcript an LLM reads shows them as they came.
        String transcript = new Transcript(ZoneOffset.UTC, 100).render(List.of(openAi, blocks));
        assertTrue(transcript.contains("[tool call c1] run(ls -la {)"), transcript);
        assertTrue(transcript.contains("[tool call c2] run(ls -la {)"), transcript);
    }
}
