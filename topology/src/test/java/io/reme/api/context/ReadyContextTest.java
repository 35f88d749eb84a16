package io.reme.api.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.api.ApiException;
import io.reme.json.Json;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.session.SessionView;
import io.reme.session.StoredMessage;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadyContextTest {
    private static final SessionView.Tokens TOKENS =
            new SessionView.Tokens("o200k_base", 7, 40, 47, 1000, 500, 4000, 0.01, 0.04, 0, 0);
    private static final String NOTICE = "line 1\n[output truncated: the full output is stored at tool-results/x]";

    private static Message message(Role role, String name, Block... blocks) {
        return new Message("acme", "s1", "alice", "m", role, name, Instant.EPOCH, List.of(blocks));
    }

    private static SessionView view(String summary, Message... messages) {
        List<StoredMessage> stored = new ArrayList<>();
        for (Message message : messages) {
            stored.add(new StoredMessage(stored.size(), 5, message));
        }
        return new SessionView("acme", "s1", "alice", summary, summary.isEmpty() ? 0 : 1, null, stored, TOKENS, null);
    }

    private static JsonNode json(String text) {
        try {
            return Json.MAPPER.readTree(text.replace('\'', '"'));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode tree(Object value) {
        return Json.MAPPER.valueToTree(value);
    }

    @Test
    void openAiHasTheSummaryFirstThenTheMessagesWithCallsAndResultsPaired() {
        SessionView view = view(
                "## Summary\nalice likes tea",
                message(Role.SYSTEM, null, new Block.Text("be brief")),
                message(Role.USER, "alice", new Block.Text("what is in the log?")),
                message(
                        Role.ASSISTANT,
                        null,
                        new Block.Thinking("let me look"),
                        new Block.Text("Looking."),
                        new Block.ToolUse("c1", "read_file", "{\"path\":\"log\"}")),
                message(Role.TOOL, "read_file", new Block.ToolResult("c1", "read_file", NOTICE)),
                message(Role.ASSISTANT, null, new Block.Text("It has one line.")));

        JsonNode answer = tree(ReadyContext.openAi(view));

        assertEquals(
                json("["
                        + "{'role':'system','content':'## Summary\\nalice likes tea'},"
                        + "{'role':'system','content':'be brief'},"
                        + "{'role':'user','content':'what is in the log?','name':'alice'},"
                        + "{'role':'assistant','content':'Looking.','tool_calls':[{'id':'c1','type':'function',"
                        + "'function':{'name':'read_file','arguments':'{\\'path\\':\\'log\\'}'}}]},"
                        + "{'role':'tool','tool_call_id':'c1','content':'"
                        + NOTICE.replace("\n", "\\n") + "'},"
                        + "{'role':'assistant','content':'It has one line.'}]"),
                answer.path("messages"));
        assertEquals(tree(TOKENS), answer.path("tokens"));
    }

    @Test
    void aResultIsMovedRightAfterItsCallAndBlockStyleResultsBecomeToolMessages() {
        SessionView view = view(
                "",
                message(Role.USER, null, new Block.Text("go")),
                message(
                        Role.ASSISTANT,
                        null,
                        new Block.ToolUse("a", "one", "{}"),
                        new Block.ToolUse("b", "two", "not json")),
                message(Role.USER, null, new Block.Text("hurry up")),
                // Block style: the results come in a user message, after the user spoke in between.
                message(
                        Role.USER,
                        null,
                        new Block.ToolResult("b", "two", "B"),
                        new Block.ToolResult("a", "one", "A"),
                        new Block.Text("done?")));

        JsonNode messages = tree(ReadyContext.openAi(view)).path("messages");

        assertEquals(
                json("["
                        + "{'role':'user','content':'go'},"
                        + "{'role':'assistant','tool_calls':["
                        + "{'id':'a','type':'function','function':{'name':'one','arguments':'{}'}},"
                        + "{'id':'b','type':'function','function':{'name':'two','arguments':'not json'}}]},"
                        + "{'role':'tool','tool_call_id':'a','content':'A'},"
                        + "{'role':'tool','tool_call_id':'b','content':'B'},"
                        + "{'role':'user','content':'hurry up'},"
                        + "{'role':'user','content':'done?'}]"),
                messages);
    }

    @Test
    void anUnansweredCallGetsAStatedResultUnlessItIsTheLastMessageAndAnOrphanResultIsText() {
        SessionView view = view(
                "",
                message(Role.TOOL, "gone", new Block.ToolResult("old", "gone", "from before the summary")),
                message(Role.ASSISTANT, null, new Block.ToolUse("lost", "ping", "{}")),
                message(Role.USER, null, new Block.Text("and now?")),
                message(Role.ASSISTANT, null, new Block.ToolUse("next", "ping", "{}")));

        JsonNode messages = tree(ReadyContext.openAi(view)).path("messages");

        assertEquals(
                json("["
                        + "{'role':'user','content':'[tool result old] gone: from before the summary'},"
                        + "{'role':'assistant','tool_calls':[{'id':'lost','type':'function',"
                        + "'function':{'name':'ping','arguments':'{}'}}]},"
                        + "{'role':'tool','tool_call_id':'lost','content':'" + ReadyContext.NO_RESULT + "'},"
                        + "{'role':'user','content':'and now?'},"
                        + "{'role':'assistant','tool_calls':[{'id':'next','type':'function',"
                        + "'function':{'name':'ping','arguments':'{}'}}]}]"),
                messages);
    }

    @Test
    void imagesArePartsAndTextWithAnImageStaysParts() {
        SessionView view = view(
                "",
                message(
                        Role.USER,
                        null,
                        new Block.Text("look"),
                        new Block.Image("https://example.com/a.png", null, null),
                        new Block.Image(null, "image/jpeg", "QUJD")));

        JsonNode messages = tree(ReadyContext.openAi(view)).path("messages");

        assertEquals(
                json("[{'role':'user','content':[{'type':'text','text':'look'},"
                        + "{'type':'image_url','image_url':{'url':'https://example.com/a.png'}},"
                        + "{'type':'image_url','image_url':{'url':'data:image/jpeg;base64,QUJD'}}]}]"),
                messages);
    }

    @Test
    void anthropicKeepsTheSystemApartAndSendsBlocksWithResultsInTheNextUserTurn() {
        SessionView view = view(
                "the summary",
                message(Role.SYSTEM, null, new Block.Text("be brief")),
                message(Role.USER, null, new Block.Text("read it")),
                message(
                        Role.ASSISTANT,
                        null,
                        new Block.Thinking("hm"),
                        new Block.Text("Reading."),
                        new Block.ToolUse("c1", "read_file", "{\"path\":\"log\"}"),
                        new Block.ToolUse("c2", "grep", "broken {")),
                message(Role.TOOL, "read_file", new Block.ToolResult("c1", "read_file", NOTICE)),
                message(Role.USER, null, new Block.Text("and?"), new Block.ToolResult("c2", "grep", "none")),
                message(Role.ASSISTANT, null, new Block.Text("Done.")));

        JsonNode answer = tree(ReadyContext.anthropic(view));

        assertEquals("the summary\n\nbe brief", answer.path("system").asText());
        assertEquals(
                json("["
                        + "{'role':'user','content':[{'type':'text','text':'read it'}]},"
                        + "{'role':'assistant','content':[{'type':'text','text':'Reading.'},"
                        + "{'type':'tool_use','id':'c1','name':'read_file','input':{'path':'log'}},"
                        + "{'type':'tool_use','id':'c2','name':'grep','input':{'arguments':'broken {'}}]},"
                        + "{'role':'user','content':["
                        + "{'type':'tool_result','tool_use_id':'c1','content':'" + NOTICE.replace("\n", "\\n") + "'},"
                        + "{'type':'tool_result','tool_use_id':'c2','content':'none'},"
                        + "{'type':'text','text':'and?'}]},"
                        + "{'role':'assistant','content':[{'type':'text','text':'Done.'}]}]"),
                answer.path("messages"));
        assertEquals(tree(TOKENS), answer.path("tokens"));
    }

    @Test
    void theFormatIsOpenAiOrAnthropicAndAnythingElseIsA400NamingFormat() {
        assertEquals(ReadyContext.Format.OPENAI, ReadyContext.Format.parse("openai"));
        assertEquals(ReadyContext.Format.ANTHROPIC, ReadyContext.Format.parse("anthropic"));
        for (String bad : new String[] {"", "OpenAI", "gemini"}) {
            ApiException e = assertThrows(ApiException.class, () -> ReadyContext.Format.parse(bad));
            assertEquals(400, e.status());
            assertTrue(e.getMessage().contains("'format'"), e.getMessage());
        }
    }
}
