package io.reme.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageSpanTest {
    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00.123456789Z");

    private static List<Message> messages() {
        return List.of(
                new Message(
                        "t1",
                        "s1",
                        "u1",
                        "m-1",
                        Role.USER,
                        null,
                        T0,
                        List.of(
                                new Block.Text("héllo \"quoted\" \n\t wörld 😀 \u2028"),
                                new Block.Image(null, "image/png", "aGVsbG8="))),
                new Message(
                        "t1",
                        "s1",
                        "u1",
                        "m-2",
                        Role.ASSISTANT,
                        null,
                        T0.plusSeconds(1),
                        List.of(
                                new Block.Thinking("hmm"),
                                new Block.ToolUse("call-1", "grep", "{\"q\":\"x\"}"),
                                new Block.ToolResult("call-1", "grep", "line 1\nline 2\u0000end"))));
    }

    private static LlmRequest request(LlmKind kind, List<Message> messages) {
        return new LlmRequest(
                "r-1",
                3,
                kind,
                List.of(),
                new LlmRequest.Dialog("t1", "s1", "u1", 0, 10, 11, messages, "en"),
                new LlmRequest.Compaction("the summary", 200, List.of("call-9")),
                0,
                T0);
    }

    @Test
    void writesTheSameJsonAsAPlainListForEveryRequestThatCarriesIt() throws Exception {
        MessageSpan span = MessageSpan.of(messages());
        for (LlmKind kind : LlmKind.values()) {
            // Records are written as bytes (UTF-8); the API may write the same values as text.
            assertEquals(
                    new String(Json.MAPPER.writeValueAsBytes(request(kind, messages())), StandardCharsets.UTF_8),
                    new String(Json.MAPPER.writeValueAsBytes(request(kind, span)), StandardCharsets.UTF_8),
                    kind.name());
            assertEquals(
                    Json.MAPPER.writeValueAsString(request(kind, messages())),
                    Json.MAPPER.writeValueAsString(request(kind, span)),
                    kind.name());
        }
        LlmRequest read =
                Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(request(LlmKind.DIARY, span)), LlmRequest.class);
        assertEquals(request(LlmKind.DIARY, messages()), read);
        assertFalse(read.dialog().messages() instanceof MessageSpan);
    }

    @Test
    void staysOneObjectAcrossRequestsAndKinds() {
        MessageSpan span = MessageSpan.of(messages());
        LlmRequest diary = request(LlmKind.DIARY, span);
        assertSame(span, diary.dialog().messages());
        assertSame(span, diary.withKind(LlmKind.EXTRACT).dialog().messages());
        assertSame(span, MessageSpan.of(span));
        assertEquals(messages(), span);
    }

    @Test
    void isImmutableAndCopiesWhatItIsGiven() {
        List<Message> source = new ArrayList<>(messages());
        MessageSpan span = MessageSpan.of(source);
        source.clear();
        assertEquals(2, span.size());
        assertThrows(
                UnsupportedOperationException.class, () -> span.add(messages().get(0)));
        assertThrows(UnsupportedOperationException.class, () -> span.remove(0));
        assertInstanceOf(List.class, span.subList(1, 2));
        assertEquals(List.of(messages().get(1)), span.subList(1, 2));
    }
}
