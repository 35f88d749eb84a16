package io.reme.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.client.FakeApi.Answer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionMemoryTest {
    private static final OpenAiMessage SYSTEM = OpenAiMessage.system("Be brief.");
    private static final OpenAiMessage HI = OpenAiMessage.user("Hi");
    private static final OpenAiMessage HELLO = OpenAiMessage.assistant("Hello!", null);
    private static final OpenAiMessage CALL =
            OpenAiMessage.assistant(null, List.of(ToolCall.function("c1", "weather", "{}")));
    private static final OpenAiMessage RAINY = OpenAiMessage.tool("c1", "rainy");
    private static final OpenAiMessage OK = OpenAiMessage.user("ok");

    @Test
    void aListThatExtendsTheSessionSendsOnlyItsAdditions() {
        List<OpenAiMessage> served = List.of(SYSTEM, HI, HELLO);

        assertEquals(List.of(OK), SessionMemory.fresh(served, List.of(SYSTEM, HI, HELLO, OK)));
        assertEquals(List.of(), SessionMemory.fresh(served, served));
    }

    @Test
    void aListTheFrameworkCutAtTheFrontStillSendsOnlyItsAdditions() {
        List<OpenAiMessage> served = List.of(HI, HELLO, CALL, RAINY);

        assertEquals(List.of(OK), SessionMemory.fresh(served, List.of(CALL, RAINY, OK)));
    }

    @Test
    void aSessionCompactedSinceTheFrameworkReadItIsAlignedOnItsLiveMessages() {
        List<OpenAiMessage> read = List.of(HI, HELLO, CALL, RAINY);
        List<OpenAiMessage> compacted = List.of(OpenAiMessage.system("## Goal\nweather"), CALL, RAINY);
        List<OpenAiMessage> wanted = new ArrayList<>(read);
        wanted.add(OK);

        assertEquals(List.of(OK), SessionMemory.fresh(compacted, wanted));
    }

    @Test
    void aToolOutputTheServerTruncatedIsStillTheSameMessage() {
        List<OpenAiMessage> served = List.of(CALL, OpenAiMessage.tool("c1", "rai… [truncated, see tool_result/x]"));

        assertEquals(List.of(OK), SessionMemory.fresh(served, List.of(CALL, RAINY, OK)));
    }

    @Test
    void aRepeatedMessageIsNewWhenItFollowsTheWholeSession() {
        List<OpenAiMessage> served = List.of(HI, OK);

        assertEquals(List.of(OK), SessionMemory.fresh(served, List.of(HI, OK, OK)));
    }

    @Test
    void aListSharingNothingWithTheSessionIsSentWhole() {
        assertEquals(List.of(OK, HELLO), SessionMemory.fresh(List.of(HI), List.of(OK, HELLO)));
        assertEquals(List.of(HI), SessionMemory.fresh(List.of(), List.of(HI)));
    }

    @Test
    void messagesChangedBeforeTheHeldRunStayAsTheSessionHasThemButANewSystemPromptIsAppended() {
        List<OpenAiMessage> served = List.of(OpenAiMessage.system("## Goal\nsummary"), HI, HELLO);
        List<OpenAiMessage> wanted = List.of(SYSTEM, OpenAiMessage.user("edited"), HI, HELLO, OK);

        assertEquals(List.of(SYSTEM, OK), SessionMemory.fresh(served, wanted));
    }

    @Test
    void appendSendsTheNewMessagesWithIdsAndWaitsUntilTheSessionServesThem() throws Exception {
        List<Duration> pauses = new ArrayList<>();
        try (FakeApi api = new FakeApi()) {
            RemeClient client = RemeClient.builder(api.url(), "k").maxRetries(0).build();
            api.answer(
                    Answer.json(200, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"tokens\":{}}"),
                    Answer.json(202, "{\"accepted\":1,\"records\":[{\"key\":\"t/s1\",\"partition\":0,\"offset\":1}]}"),
                    Answer.error(404, "session_not_found", "not yet", Map.of()),
                    Answer.json(200, "{\"session\":\"s1\",\"messages\":[{\"seq\":0,\"message\":{\"id\":\"other\"}}]}"));
            // The id is the client's: once the script is spent the session serves the message the client posted.
            api.otherwise(asked -> Answer.json(
                    200,
                    "{\"session\":\"s1\",\"messages\":[{\"seq\":1,\"message\":{\"id\":\""
                            + readId(asked.get(1).body()) + "\"}}]}"));
            SessionMemory memory = new SessionMemory(client, Duration.ofSeconds(30), pauses::add);

            List<OpenAiMessage> sent = memory.append("s1", "alice", List.of(HI, HELLO));

            assertEquals(List.of(HELLO), sent);
            JsonNode posted = RemeClient.mapper().readTree(api.requests().get(1).body());
            assertEquals(1, posted.size());
            assertEquals("alice", posted.get(0).path("user").asText());
            assertEquals("assistant", posted.get(0).path("role").asText());
            assertTrue(posted.get(0).hasNonNull("id"));
            assertEquals(
                    "/v1/sessions/s1/context?window=all", api.requests().get(2).pathAndQuery());
            assertEquals(5, api.requests().size());
            assertEquals(List.of(Duration.ofMillis(20), Duration.ofMillis(40)), pauses);
        }
    }

    @Test
    void anInvalidSessionIdIsRefusedBeforeAnyRequest() {
        RemeClient client = RemeClient.builder("http://127.0.0.1:9", "k").build();
        SessionMemory memory = new SessionMemory(client, Duration.ofSeconds(1));

        assertThrows(IllegalArgumentException.class, () -> memory.read("user 42"));
        assertThrows(IllegalArgumentException.class, () -> memory.append("a/b", "u", List.of(HI)));
        assertThrows(IllegalArgumentException.class, () -> memory.append("s", "-u", List.of(HI)));
    }

    private static String readId(String body) {
        try {
            return RemeClient.mapper().readTree(body).get(0).path("id").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
