package io.reme.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.client.FakeApi.Answer;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RemeClientTest {
    private static final String EMPTY_PAGE = "{\"sessions\":[],\"nextCursor\":null,\"partial\":false}";

    private FakeApi api;
    private final List<Duration> waits = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        api = new FakeApi();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private RemeClient client(int maxRetries) {
        return RemeClient.builder(api.url() + "/", "key-1")
                .maxRetries(maxRetries)
                .maxWait(Duration.ofSeconds(30))
                .sleeper(waits::add)
                .clock(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC))
                .build();
    }

    @Test
    void a503IsSentAgainAfterItsRetryAfterAndAnswersWhenTheServerDoes() {
        api.answer(
                Answer.error(503, "unavailable", "the store is moving", Map.of("Retry-After", "2")),
                Answer.error(503, "unavailable", "the store is moving", Map.of("Retry-After", "0.5")),
                Answer.json(200, EMPTY_PAGE));

        SessionPage page = client(5).listSessions(SessionFilter.all(), null);

        assertTrue(page.sessions().isEmpty());
        assertEquals(List.of(Duration.ofSeconds(2), Duration.ofMillis(500)), waits);
        assertEquals(3, api.requests().size());
    }

    @Test
    void a429WithoutRetryAfterBacksOffExponentiallyUntilMaxRetriesThenThrowsRateLimited() {
        Answer limited = Answer.error(429, "too_many_requests", "past the quota", Map.of());
        api.answer(limited, limited, limited, limited);

        RemeException.RateLimited e =
                assertThrows(RemeException.RateLimited.class, () -> client(3).search(SearchRequest.of("x")));

        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4)), waits);
        assertEquals(4, api.requests().size());
        assertEquals("too_many_requests", e.code());
        assertEquals("past the quota", e.detail());
        assertEquals(429, e.status());
    }

    @Test
    void aRetryAfterIsCappedByMaxWaitAndReadAsAnHttpDateToo() {
        api.answer(
                Answer.error(503, "unavailable", "busy", Map.of("Retry-After", "3600")),
                Answer.error(503, "unavailable", "busy", Map.of("Retry-After", "Tue, 01 Dec 2026 10:00:07 GMT")),
                Answer.json(200, EMPTY_PAGE));

        client(5).listSessions(SessionFilter.all(), null);

        assertEquals(List.of(Duration.ofSeconds(30), Duration.ofSeconds(7)), waits);
    }

    @Test
    void withNoRetriesTheFirst503IsThrownWithItsRetryAfter() {
        api.answer(Answer.error(503, "unavailable", "busy", Map.of("Retry-After", "4")));

        RemeException.Unavailable e =
                assertThrows(RemeException.Unavailable.class, () -> client(0).tenantErasure());

        assertEquals(Duration.ofSeconds(4), e.retryAfter().orElseThrow());
        assertTrue(waits.isEmpty());
    }

    @Test
    void eachRefusalIsTheExceptionOfItsStatusAndIsNotRetried() {
        Map<Integer, Class<? extends RemeException>> kinds = Map.of(
                400, RemeException.BadRequest.class,
                401, RemeException.Unauthorized.class,
                404, RemeException.NotFound.class,
                409, RemeException.Conflict.class,
                413, RemeException.PayloadTooLarge.class,
                500, RemeException.ServerError.class,
                502, RemeException.ServerError.class);
        RemeClient client = client(5);
        for (Map.Entry<Integer, Class<? extends RemeException>> kind : kinds.entrySet()) {
            api.answer(Answer.error(kind.getKey(), "code_" + kind.getKey(), "message " + kind.getKey(), Map.of()));
            RemeException e = assertThrows(RemeException.class, () -> client.getMemory("m1"));
            assertInstanceOf(kind.getValue(), e);
            assertEquals(kind.getKey(), e.status());
            assertEquals("code_" + kind.getKey(), e.code());
            assertEquals("message " + kind.getKey(), e.detail());
        }
        assertEquals(kinds.size(), api.requests().size());
        assertTrue(waits.isEmpty());

        api.answer(new Answer(418, Map.of(), "<html>teapot</html>"));
        RemeException other = assertThrows(RemeException.class, () -> client.getMemory("m1"));
        assertEquals(RemeException.class, other.getClass());
        assertEquals("http_418", other.code());
        assertEquals("<html>teapot</html>", other.detail());
    }

    @Test
    void requestsCarryTheKeyAJsonBodyWithoutAbsentFieldsAndEscapedPathSegments() {
        api.answer(
                Answer.json(
                        200,
                        "{\"hits\":[{\"id\":\"m1\",\"type\":\"personal\",\"text\":\"t\",\"score\":0.5,"
                                + "\"createdAt\":\"2026-11-30T10:00:00Z\",\"somethingNew\":1}],\"partial\":false}"),
                Answer.json(200, "{\"id\":\"a b/c\",\"content\":\"x\",\"version\":1}"));
        RemeClient client = client(0);

        SearchAnswer answer = client.search(SearchRequest.of("window seats")
                .withUsers("alice")
                .withK(5)
                .withTimeRange(Instant.parse("2026-11-01T00:00:00Z"), null));
        Memory memory = client.getMemory("a b/c");

        assertEquals(
                Instant.parse("2026-11-30T10:00:00Z"), answer.hits().getFirst().createdAt());
        assertEquals("a b/c", memory.id());
        FakeApi.Request search = api.requests().get(0);
        assertEquals("POST", search.method());
        assertEquals("/v1/search", search.pathAndQuery());
        assertEquals("Bearer key-1", search.header("Authorization"));
        assertEquals("application/json", search.header("Content-Type"));
        assertEquals(
                "{\"query\":\"window seats\",\"k\":5,\"users\":[\"alice\"],\"from\":\"2026-11-01T00:00:00Z\"}",
                search.body());
        assertEquals("/v1/memories/a%20b%2Fc", api.requests().get(1).pathAndQuery());
    }

    @Test
    void memoriesFollowTheCursorPageByPageAndAskForNoPageTheStreamDoesNotReach() {
        api.answer(
                Answer.json(200, "{\"memories\":[{\"id\":\"m1\"},{\"id\":\"m2\"}],\"nextCursor\":\"c1\"}"),
                Answer.json(200, "{\"memories\":[],\"nextCursor\":\"c2\"}"),
                Answer.json(200, "{\"memories\":[{\"id\":\"m3\"}]}"));
        RemeClient client = client(0);
        MemoryFilter filter = MemoryFilter.all()
                .withTypes("personal", "tool")
                .withUsers("alice")
                .withLimit(2);

        List<String> ids = client.memories(filter).map(Memory::id).toList();

        assertEquals(List.of("m1", "m2", "m3"), ids);
        List<String> asked =
                api.requests().stream().map(FakeApi.Request::pathAndQuery).toList();
        assertEquals(
                List.of(
                        "/v1/memories?type=personal&type=tool&user=alice&limit=2",
                        "/v1/memories?type=personal&type=tool&user=alice&limit=2&cursor=c1",
                        "/v1/memories?type=personal&type=tool&user=alice&limit=2&cursor=c2"),
                asked);

        api.answer(Answer.json(200, "{\"memories\":[{\"id\":\"m1\"}],\"nextCursor\":\"c1\"}"));
        assertEquals(
                List.of("m1"), client.memories(filter).limit(1).map(Memory::id).toList());
        assertEquals(4, api.requests().size());
    }

    @Test
    void sessionsFollowTheCursorUntilItIsNull() {
        api.answer(
                Answer.json(
                        200,
                        "{\"sessions\":[{\"session\":\"s2\",\"user\":\"u\","
                                + "\"lastActivity\":\"2026-11-30T10:00:00Z\"}],\"nextCursor\":\"n1\",\"partial\":false}"),
                Answer.json(200, "{\"sessions\":[{\"session\":\"s1\",\"user\":\"u\"}],\"nextCursor\":null}"));

        List<SessionEntry> sessions = client(0)
                .sessions(SessionFilter.all()
                        .withUser("u")
                        .withActiveSince(Instant.parse("2026-11-01T00:00:00Z"))
                        .withLimit(1))
                .toList();

        assertEquals(
                List.of("s2", "s1"),
                sessions.stream().map(SessionEntry::session).toList());
        assertEquals(
                "/v1/sessions?user=u&active_since=2026-11-01T00%3A00%3A00Z&limit=1&cursor=n1",
                api.requests().get(1).pathAndQuery());
    }

    @Test
    void theReadyFormatsReadAsRecords() {
        api.answer(
                Answer.json(
                        200,
                        "{\"messages\":[{\"role\":\"system\",\"content\":\"## Goal\"},"
                                + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                                + "\"function\":{\"name\":\"weather\",\"arguments\":\"{}\"}}]},"
                                + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"rainy\"},"
                                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"text\",\"text\":\"b\"}]}],"
                                + "\"tokens\":{\"encoding\":\"o200k_base\",\"total\":12}}"),
                Answer.json(
                        200,
                        "{\"system\":\"\",\"messages\":[{\"role\":\"user\",\"content\":"
                                + "[{\"type\":\"text\",\"text\":\"hi\"}]}],\"tokens\":{\"total\":1}}"));
        RemeClient client = client(0);

        OpenAiContext openAi = client.openAiContext("s-1");
        AnthropicContext anthropic = client.anthropicContext("s-1");

        assertEquals("## Goal", openAi.messages().get(0).text());
        ToolCall call = openAi.messages().get(1).toolCalls().getFirst();
        assertEquals("weather", call.function().name());
        assertNull(openAi.messages().get(1).text());
        assertEquals("c1", openAi.messages().get(2).toolCallId());
        assertEquals("a\nb", openAi.messages().get(3).text());
        assertEquals(12, openAi.tokens().total());
        assertEquals(
                "hi",
                anthropic
                        .messages()
                        .getFirst()
                        .content()
                        .getFirst()
                        .path("text")
                        .asText());
        assertEquals(
                List.of("/v1/sessions/s-1/context?format=openai", "/v1/sessions/s-1/context?format=anthropic"),
                api.requests().stream().map(FakeApi.Request::pathAndQuery).collect(Collectors.toList()));
    }

    @Test
    void aBaseUrlWithoutSchemeAndAMissingKeyAreRefusedAtOnce() {
        assertThrows(IllegalArgumentException.class, () -> RemeClient.builder("127.0.0.1:8080", "k"));
        assertThrows(IllegalArgumentException.class, () -> RemeClient.builder("http://127.0.0.1:8080", " "));
    }
}
