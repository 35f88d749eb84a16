package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.ObjectMappers;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessageParam;
import io.reme.app.ApiClient.Response;
import io.reme.json.Json;
import io.reme.provider.OpenAiTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/sessions/{session}/context?format=openai} is exactly what a chat-completions client
 * sends: the messages go through the real openai-java client to the test server unchanged. Also the
 * Anthropic shape, the default left as it was, and a bad format refused.
 */
@Tag("integration")
class ContextFormatIT extends WithBroker {
    private static final String SESSION = "agent-1";
    private static RemeApp app;

    @BeforeAll
    static void start() {
        app = RemeApp.start(TestApps.config(broker.bootstrapServers(), dir.resolve("app"), Map.of()));
        String batch = "["
                + "{'session':'agent-1','user':'alice','role':'user','content':'What is in the log?'},"
                + "{'session':'agent-1','user':'alice','role':'assistant','content':'Looking.',"
                + "'tool_calls':[{'id':'call_1','type':'function',"
                + "'function':{'name':'read_file','arguments':'{\\'path\\':\\'app.log\\'}'}}]},"
                + "{'session':'agent-1','user':'alice','role':'tool','tool_call_id':'call_1',"
                + "'name':'read_file','content':'one line: started'},"
                + "{'session':'agent-1','user':'alice','role':'assistant','content':'It says it started.'}]";
        Response accepted = ApiClient.send(app, "POST", "/v1/messages", TestApps.ACME_KEY, batch.replace('\'', '"'));
        assertEquals(202, accepted.status(), accepted::text);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static Response context(String key, String query) {
        return ApiClient.send(app, "GET", "/v1/sessions/" + SESSION + "/context" + query, key, null);
    }

    /** Polls the context in {@code query}'s shape until it holds {@code count} messages. */
    private static JsonNode await(String query, int count) {
        AtomicReference<Response> last = new AtomicReference<>();
        Awaitility.await("a context of " + count + " messages")
                .atMost(Duration.ofSeconds(60))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    last.set(context(TestApps.ACME_KEY, query));
                    assertTrue(
                            last.get().status() == 200
                                    && last.get().json().path("messages").size() >= count,
                            () -> "no context of " + count + " messages; last "
                                    + last.get().text());
                });
        return last.get().json();
    }

    @Test
    void theOpenAiFormatIsSentAsItIsByTheOpenAiClient() throws Exception {
        JsonNode context = await("?format=openai", 4);
        JsonNode messages = context.path("messages");
        assertEquals(
                Json.MAPPER.readTree(("["
                                + "{'role':'user','content':'What is in the log?'},"
                                + "{'role':'assistant','content':'Looking.','tool_calls':[{'id':'call_1',"
                                + "'type':'function','function':{'name':'read_file',"
                                + "'arguments':'{\\'path\\':\\'app.log\\'}'}}]},"
                                + "{'role':'tool','tool_call_id':'call_1','content':'one line: started'},"
                                + "{'role':'assistant','content':'It says it started.'}]")
                        .replace('\'', '"')),
                messages);
        JsonNode tokens = context.path("tokens");
        assertTrue(tokens.path("messages").asLong() > 0, tokens::toString);
        assertEquals(
                tokens.path("summary").asLong() + tokens.path("messages").asLong(),
                tokens.path("total").asLong());

        List<ChatCompletionMessageParam> params = new ArrayList<>();
        for (JsonNode message : messages) {
            params.add(ObjectMappers.jsonMapper().readValue(message.toString(), ChatCompletionMessageParam.class));
        }
        try (OpenAiTestServer server = OpenAiTestServer.start(body -> OpenAiTestServer.text("noted"))) {
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .apiKey(OpenAiTestServer.API_KEY)
                    .baseUrl(server.baseUrl())
                    .maxRetries(0)
                    .build();
            try {
                ChatCompletion completion = client.chat()
                        .completions()
                        .create(ChatCompletionCreateParams.builder()
                                .model(OpenAiTestServer.MODEL)
                                .messages(params)
                                .build());
                assertEquals(
                        "noted", completion.choices().get(0).message().content().orElseThrow());
            } finally {
                client.close();
            }
            assertEquals(1, server.requests().size());
            assertEquals(messages, server.requests().get(0).messages(), "the server received exactly the context");
        }
    }

    @Test
    void theAnthropicFormatKeepsTheSystemApartAndSendsBlocks() throws Exception {
        JsonNode context = await("?format=anthropic", 4);
        assertEquals("", context.path("system").asText());
        JsonNode messages = context.path("messages");
        assertEquals(4, messages.size(), messages::toString);
        assertEquals("assistant", messages.path(1).path("role").asText());
        JsonNode call = messages.path(1).path("content").path(1);
        assertEquals("tool_use", call.path("type").asText());
        assertEquals("app.log", call.path("input").path("path").asText());
        JsonNode result = messages.path(2).path("content").path(0);
        assertEquals("user", messages.path(2).path("role").asText());
        assertEquals("tool_result", result.path("type").asText());
        assertEquals("call_1", result.path("tool_use_id").asText());
        assertEquals("one line: started", result.path("content").asText());
    }

    @Test
    void withoutAFormatTheViewIsAsBeforeAndAnUnknownFormatIs400() throws Exception {
        JsonNode view = await("", 4);
        assertEquals(SESSION, view.path("session").asText());
        assertFalse(view.path("compaction").isMissingNode(), view::toString);
        assertEquals(
                "tool_use",
                view.path("messages")
                        .path(1)
                        .path("message")
                        .path("content")
                        .path(1)
                        .path("type")
                        .asText());

        Response unknown = context(TestApps.ACME_KEY, "?format=gemini");
        assertEquals(400, unknown.status(), unknown::text);
        assertEquals("invalid_query", unknown.errorCode());
        assertTrue(unknown.json().path("error").path("message").asText().contains("'format'"), unknown::text);

        Response otherTenant = context(TestApps.GLOBEX_KEY, "?format=openai");
        assertEquals(404, otherTenant.status(), otherTenant::text);
        assertTrue(otherTenant.json().path("messages").isMissingNode());
    }
}
