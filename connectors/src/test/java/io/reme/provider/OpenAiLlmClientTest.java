package io.reme.provider;

import static io.reme.provider.OpenAiTestServer.status;
import static io.reme.provider.OpenAiTestServer.text;
import static io.reme.provider.OpenAiTestServer.toolCalls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.provider.OpenAiTestServer.Reply;
import io.reme.provider.OpenAiTestServer.Request;
import io.reme.provider.OpenAiTestServer.ToolCall;
import io.reme.summary.SummaryFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpenAiLlmClientTest {
    private static final Instant T0 = Instant.parse("2026-11-28T14:00:00Z");
    private static final String DAILY = "memory/2026-11-28.md";
    private static final String VALID_SUMMARY = """
            ## Goal
            - Migrate orders-service to Kafka 4.4

            ## Constraints & Preferences
            (none)

            ## Progress
            ### Done
            - set max-poll-records=100

            ### In Progress
            (none)

            ### Blocked
            (none)

            ## Key Decisions
            (none)

            ## Next Steps
            1. deploy to orders-stg-2

            ## Critical Context
            - ORD-4821
            """;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    private OpenAiTestServer server(Function<JsonNode, Reply> script) {
        OpenAiTestServer server = OpenAiTestServer.start(script);
        open.add(server);
        return server;
    }

    private OpenAiLlmClient client(OpenAiSettings settings) {
        OpenAiLlmClient client = new OpenAiLlmClient(settings);
        open.add(0, client);
        return client;
    }

    private static Message message(Role role, int minute, Block block) {
        return new Message(
                "acme", "s1", "alice", "m" + minute, role, null, T0.plusSeconds(60L * minute), List.of(block));
    }

    private static List<Message> conversation() {
        return List.of(
                message(Role.USER, 0, new Block.Text("Goal: migrate orders-service to Kafka 4.4. Ticket ORD-4821.")),
                message(
                        Role.ASSISTANT,
                        1,
                        new Block.ToolUse("call_1", "read_file", "{\"path\":\"/srv/orders/application.properties\"}")),
                message(
                        Role.TOOL,
                        2,
                        new Block.ToolResult(
                                "call_1", "read_file", "max-poll-records=500\nmax.poll.interval.ms=300000")),
                message(Role.ASSISTANT, 3, new Block.Text("Set max-poll-records=100; next: deploy to orders-stg-2.")));
    }

    private static SummaryTask summaryTask() {
        return new SummaryTask(conversation(), "", "en", 3000, null);
    }

    private static DiaryTask diaryTask() {
        return new DiaryTask("acme", "alice", "s1", LocalDate.of(2026, 11, 28), conversation(), "en");
    }

    // ------------------------------------------------------------------ summary

    @Test
    void theSummaryRequestCarriesTheTranscriptFormatBudgetAndSettings() throws LlmException {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY));
        OpenAiLlmClient client =
                client(server.settings().withMaxOutputTokens(1234).withTemperature(0.2));

        assertEquals(VALID_SUMMARY.strip(), client.summarize(summaryTask()));

        assertEquals(1, server.requests().size());
        Request request = server.requests().get(0);
        assertEquals("Bearer " + OpenAiTestServer.API_KEY, request.authorization());
        JsonNode body = request.body();
        assertEquals(OpenAiTestServer.MODEL, body.path("model").asText());
        assertEquals(1234, body.path("max_completion_tokens").asInt());
        assertEquals(0.2, body.path("temperature").asDouble(), 1e-9);
        assertFalse(request.hasTools(), "a summary needs no tools");
        assertEquals("system", request.messages().get(0).path("role").asText());
        assertTrue(request.content("system").contains("summary"), request.content("system"));

        String prompt = request.content("user");
        assertNotNull(prompt);
        assertTrue(prompt.startsWith("# Conversation\n"), prompt);
        assertTrue(
                prompt.contains("[2026-11-28 14:00] user (alice):\nGoal: migrate orders-service to Kafka 4.4. "
                        + "Ticket ORD-4821."),
                prompt);
        assertTrue(
                prompt.contains("[tool call call_1] read_file({\"path\":\"/srv/orders/application.properties\"})"),
                prompt);
        assertTrue(
                prompt.contains("[tool result call_1] read_file: max-poll-records=500 max.poll.interval.ms=300000"),
                prompt);
        for (String section : SummaryFormat.SECTIONS) {
            assertTrue(prompt.contains("\n## " + section), section);
        }
        for (String part : SummaryFormat.PROGRESS_PARTS) {
            assertTrue(prompt.contains("\n### " + part), part);
        }
        assertTrue(prompt.contains("(none)"), prompt);
        assertTrue(prompt.contains("under 3000 tokens"), prompt);
        assertTrue(prompt.contains("English (en)"), prompt);
        assertFalse(prompt.contains("# Previous summary"), prompt);
        assertFalse(prompt.contains("refused"), prompt);
    }

    @Test
    void anUpdateCarriesThePreviousSummaryAndARetryCarriesTheReason() throws LlmException {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY));
        OpenAiLlmClient client = client(server.settings());
        String previous = VALID_SUMMARY.replace("- ORD-4821", "- PREVIOUS-SUMMARY-MARKER ORD-4700");
        SummaryTask task = new SummaryTask(conversation(), previous, "de", 2500, null)
                .withRetryReason("missing section '## Next Steps'");

        client.summarize(task);

        String prompt = server.requests().get(0).content("user");
        int conversationAt = prompt.indexOf("# Conversation\n");
        int previousAt = prompt.indexOf("\n# Previous summary\n");
        assertTrue(conversationAt >= 0 && previousAt > conversationAt, prompt);
        assertTrue(prompt.indexOf("PREVIOUS-SUMMARY-MARKER ORD-4700") > previousAt, prompt);
        assertTrue(prompt.contains("move items that are now finished to Done"), prompt);
        assertTrue(prompt.contains("remove blockers that have been resolved"), prompt);
        assertTrue(prompt.contains("German (de)"), prompt);
        assertTrue(prompt.contains("under 2500 tokens"), prompt);
        assertTrue(prompt.contains("refused: missing section '## Next Steps'"), prompt);
    }

    @Test
    void aHugeBlockIsCutInThePrompt() throws LlmException {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY));
        OpenAiLlmClient client = client(server.settings());
        String huge = "x".repeat(OpenAiLlmClient.TRANSCRIPT_BLOCK_CHARS * 5);
        List<Message> messages = List.of(
                message(Role.ASSISTANT, 0, new Block.ToolUse("call_9", "dump", "{}")),
                message(Role.TOOL, 1, new Block.ToolResult("call_9", "dump", huge)),
                message(Role.USER, 2, new Block.Text("AFTER-THE-HUGE-OUTPUT")));

        client.summarize(new SummaryTask(messages, "", "en", 3000, null));

        String prompt = server.requests().get(0).content("user");
        assertTrue(prompt.contains("x".repeat(OpenAiLlmClient.TRANSCRIPT_BLOCK_CHARS) + " …[cut]"), "cut marker");
        assertFalse(prompt.contains("x".repeat(OpenAiLlmClient.TRANSCRIPT_BLOCK_CHARS + 1)), "cut at the limit");
        assertTrue(prompt.contains("AFTER-THE-HUGE-OUTPUT"), prompt);
    }

    @Test
    void aFenceAroundTheAnswerIsStripped() throws LlmException {
        OpenAiTestServer server = server(request -> text("```markdown\n" + VALID_SUMMARY + "```\n"));
        String summary = client(server.settings()).summarize(summaryTask());
        assertEquals(VALID_SUMMARY.strip(), summary);
    }

    @Test
    void cleaningKeepsInnerFencesAndDropsAReasoningPreamble() {
        String inner = "## Goal\n```\ncode\n```\n## Next Steps\n(none)";
        assertEquals(inner, OpenAiLlmClient.clean(inner));
        assertEquals("## Goal\nx", OpenAiLlmClient.clean("<think>plan it</think>\n\n```md\n## Goal\nx\n```"));
        assertEquals("```json\n{}\n```", OpenAiLlmClient.clean("```json\n{}\n```"));
    }

    // ------------------------------------------------------------------ failures

    @ParameterizedTest(name = "HTTP {0} retryable={1}")
    @CsvSource({
        "500, true",
        "503, true",
        "429, true",
        "408, true",
        "409, true",
        "400, false",
        "401, false",
        "404, false",
        "422, false"
    })
    void httpErrorsMapToLlmExceptionsWithoutSdkRetries(int status, boolean retryable) {
        OpenAiTestServer server = server(request -> status(status, "scripted failure " + status));
        OpenAiLlmClient client = client(server.settings());

        LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));

        assertEquals(retryable, e.retryable(), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(status)), e.getMessage());
        assertEquals(1, server.requests().size(), "the SDK must not retry by itself");
    }

    @Test
    void aContextLengthRefusalIsItsOwnNonRetryableFailure() {
        OpenAiTestServer server = server(request -> OpenAiTestServer.contextLengthExceeded());
        OpenAiLlmClient client = client(server.settings());

        LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));

        assertInstanceOf(ContextLengthExceededException.class, e, e.getMessage());
        assertFalse(e.retryable(), e.getMessage());
        assertTrue(e.getMessage().contains("400"), e.getMessage());
        assertEquals(1, server.requests().size(), "the SDK must not retry by itself");
    }

    @Test
    void aContextLengthRefusalWithoutACodeIsRecognisedByItsWordsAndOther400sAreNot() {
        OpenAiTestServer server = server(request ->
                status(400, "This model's maximum context length is 4096 tokens, you requested 5000 tokens"));
        LlmException e =
                assertThrows(LlmException.class, () -> client(server.settings()).summarize(summaryTask()));
        assertInstanceOf(ContextLengthExceededException.class, e, e.getMessage());

        OpenAiTestServer other = server(request -> status(400, "unknown parameter"));
        LlmException plain =
                assertThrows(LlmException.class, () -> client(other.settings()).summarize(summaryTask()));
        assertFalse(plain instanceof ContextLengthExceededException, plain.getMessage());
        assertFalse(plain.retryable());
    }

    @Test
    void theSummaryPromptStatesTheBudgetAndNamesUnansweredCalls() {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY));
        OpenAiLlmClient client = client(server.settings());
        SummaryTask task = new SummaryTask(conversation(), "", "en", 747, null, List.of("call_9"));

        String prompt = client.summaryPrompt(task);

        assertTrue(prompt.contains("under 747 tokens"), prompt);
        assertTrue(prompt.contains("call_9"), prompt);
        assertTrue(prompt.contains("Critical Context"), prompt);
        assertFalse(client.summaryPrompt(summaryTask()).contains("never got a result"));
    }

    @Test
    void aSlowAnswerTimesOutAsRetryable() {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY).after(Duration.ofSeconds(20)));
        OpenAiLlmClient client = client(server.settings().withRequestTimeout(Duration.ofMillis(500)));

        long start = System.nanoTime();
        LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertTrue(e.retryable(), e.getMessage());
        assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "gave up after " + took);
        assertEquals(1, server.requests().size(), "the SDK must not retry by itself");
    }

    @Test
    void malformedJsonIsAnLlmException() {
        OpenAiTestServer server = server(request -> OpenAiTestServer.malformed());
        OpenAiLlmClient client = client(server.settings());

        LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));

        assertTrue(e.retryable(), e.getMessage());
        assertTrue(e.getMessage().contains("not a chat completion"), e.getMessage());
    }

    @Test
    void noChoicesIsARetryableEmptyAnswer() {
        OpenAiTestServer server = server(request -> OpenAiTestServer.noChoices());
        OpenAiLlmClient client = client(server.settings());

        LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));

        assertTrue(e.retryable());
        assertTrue(e.getMessage().startsWith("empty answer"), e.getMessage());
    }

    @Test
    void blankOrMissingContentIsARetryableEmptyAnswer() {
        for (Reply reply : List.of(
                text("  \n"), new Reply(200, OpenAiTestServer.completion(null, List.of(), "stop"), Duration.ZERO))) {
            OpenAiTestServer server = server(request -> reply);
            OpenAiLlmClient client = client(server.settings());

            LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));

            assertTrue(e.retryable());
            assertTrue(e.getMessage().startsWith("empty answer"), e.getMessage());
        }
    }

    @Test
    void anUnreachableEndpointIsRetryable() throws Exception {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY));
        OpenAiSettings settings = server.settings();
        server.close();
        OpenAiLlmClient client = client(settings);

        LlmException e = assertThrows(LlmException.class, () -> client.summarize(summaryTask()));

        assertTrue(e.retryable(), e.getMessage());
    }

    // -------------------------------------------------------------------- diary

    @Test
    void theDiaryToolLoopRecoversFromAFailedEditAndEndsWithTheModelsText() throws LlmException {
        String before = "# 2026-11-28\n\n- 09:00 Stand-up\n";
        String after = "# 2026-11-28\n\n- 09:00 Stand-up\n- 14:04 Decided max-poll-records=100 (ORD-4821)\n";
        List<Reply> script = List.of(
                toolCalls(ToolCall.of("c1", "read", "document", DAILY)),
                toolCalls(ToolCall.of(
                        "c2",
                        "edit",
                        "document",
                        DAILY,
                        "old_text",
                        "- 10:00 Stand-up\n",
                        "new_text",
                        "- 10:00 Stand-up\n- 14:04 Decided max-poll-records=100 (ORD-4821)\n")),
                toolCalls(ToolCall.of("c3", "write", "document", DAILY, "content", after)),
                text("Added the 14:04 decision to " + DAILY + "."));
        AtomicInteger round = new AtomicInteger();
        OpenAiTestServer server = server(request -> script.get(round.getAndIncrement()));
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        editor.write(DAILY, before);

        String outcome = client(server.settings()).updateDiary(task, editor);

        assertEquals("Added the 14:04 decision to " + DAILY + ".", outcome);
        assertEquals(Map.of(DAILY, after), editor.documents);
        List<Request> requests = server.requests();
        assertEquals(4, requests.size());

        Request first = requests.get(0);
        assertTrue(first.hasTools());
        assertEquals(List.of("read", "write", "edit"), toolNames(first.body()));
        JsonNode editParameters =
                first.body().path("tools").get(2).path("function").path("parameters");
        assertEquals("object", editParameters.path("type").asText());
        assertEquals(
                "[\"document\",\"old_text\",\"new_text\"]",
                editParameters.path("required").toString());
        assertEquals(
                "[\"" + DAILY + "\",\"MEMORY.md\"]",
                editParameters.path("properties").path("document").path("enum").toString());

        JsonNode second = requests.get(1).messages();
        JsonNode assistant = second.get(second.size() - 2);
        assertEquals("assistant", assistant.path("role").asText());
        assertEquals("c1", assistant.path("tool_calls").get(0).path("id").asText());
        assertEquals(
                "read",
                assistant
                        .path("tool_calls")
                        .get(0)
                        .path("function")
                        .path("name")
                        .asText());
        JsonNode readResult = second.get(second.size() - 1);
        assertEquals("tool", readResult.path("role").asText());
        assertEquals("c1", readResult.path("tool_call_id").asText());
        assertEquals(before, readResult.path("content").asText());

        JsonNode editResult = requests.get(2).last();
        assertEquals("c2", editResult.path("tool_call_id").asText());
        assertTrue(editResult.path("content").asText().startsWith("Error: "), editResult.toString());
        assertTrue(editResult.path("content").asText().contains("exactly once"), editResult.toString());

        JsonNode writeResult = requests.get(3).last();
        assertEquals("c3", writeResult.path("tool_call_id").asText());
        assertTrue(writeResult.path("content").asText().startsWith("OK"), writeResult.toString());
        assertEquals(
                requests.get(2).messages().size() + 2,
                requests.get(3).messages().size(),
                "each round adds the assistant turn and its tool result");
    }

    @Test
    void theDiaryPromptNamesTheDocumentsAndCarriesTheConversation() throws LlmException {
        OpenAiTestServer server = server(request -> text("[SILENT]"));
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);

        assertEquals("[SILENT]", client(server.settings()).updateDiary(task, editor));

        assertTrue(editor.documents.isEmpty(), "nothing written");
        Request request = server.requests().get(0);
        String prompt = request.content("user");
        assertTrue(prompt.contains("[tool result call_1] read_file: max-poll-records=500"), prompt);
        assertTrue(prompt.contains("Read " + DAILY), prompt);
        assertTrue(prompt.contains("# 2026-11-28"), prompt);
        assertTrue(prompt.contains("MEMORY.md"), prompt);
        assertTrue(prompt.contains("[SILENT]"), prompt);
        assertTrue(prompt.contains("English (en)"), prompt);
        assertTrue(request.content("system").contains("diary"), request.content("system"));
    }

    @Test
    void aToolCallOutsideTheTwoDocumentsGetsAnErrorAndChangesNothing() throws LlmException {
        AtomicInteger round = new AtomicInteger();
        OpenAiTestServer server = server(request -> switch (round.getAndIncrement()) {
            case 0 ->
                toolCalls(
                        ToolCall.of("r1", "read", "document", "../other/MEMORY.md"),
                        ToolCall.of("w1", "write", "document", "../other/MEMORY.md", "content", "owned"),
                        ToolCall.of("e1", "edit", "document", "../other/MEMORY.md", "old_text", "a", "new_text", "b"));
            default -> text("I could not reach that document.");
        });
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);
        editor.write(DocumentEditor.LONG_TERM, "- prefers short answers\n");

        String outcome = client(server.settings()).updateDiary(task, editor);

        assertEquals("I could not reach that document.", outcome);
        assertEquals(Map.of(DocumentEditor.LONG_TERM, "- prefers short answers\n"), editor.documents);
        Map<String, String> results = toolResults(server.requests().get(1));
        assertEquals(List.of("r1", "w1", "e1"), List.copyOf(results.keySet()));
        for (String result : results.values()) {
            assertTrue(result.startsWith("Error: ") && result.contains("../other/MEMORY.md"), result);
        }
    }

    @Test
    void badToolArgumentsAndUnknownToolsAreReportedToTheModel() throws LlmException {
        AtomicInteger round = new AtomicInteger();
        OpenAiTestServer server = server(request -> switch (round.getAndIncrement()) {
            case 0 ->
                toolCalls(
                        new ToolCall("b1", "read", "{\"document\": \"memory/2026-11-28.md\""),
                        new ToolCall("b2", "read", "[\"" + DAILY + "\"]"),
                        new ToolCall("b3", "write", "{\"document\": \"" + DAILY + "\"}"),
                        new ToolCall("b4", "delete", "{\"document\": \"" + DAILY + "\"}"));
            default -> text("done");
        });
        DiaryTask task = diaryTask();
        MapDocumentEditor editor = new MapDocumentEditor(task);

        client(server.settings()).updateDiary(task, editor);

        Map<String, String> results = toolResults(server.requests().get(1));
        assertTrue(results.get("b1").startsWith("Error: arguments must be JSON"), results.get("b1"));
        assertTrue(results.get("b2").startsWith("Error: arguments must be a JSON object"), results.get("b2"));
        assertTrue(
                results.get("b3").startsWith("Error: ") && results.get("b3").contains("'content'"), results.get("b3"));
        assertTrue(results.get("b4").startsWith("Error: unknown tool 'delete'"), results.get("b4"));
        assertTrue(editor.documents.isEmpty());
    }

    @Test
    void readingAMissingDocumentSaysItDoesNotExist() throws LlmException {
        AtomicInteger round = new AtomicInteger();
        OpenAiTestServer server = server(request -> round.getAndIncrement() == 0
                ? toolCalls(ToolCall.of("r1", "read", "document", DocumentEditor.LONG_TERM))
                : text("[SILENT]"));
        DiaryTask task = diaryTask();

        client(server.settings()).updateDiary(task, new MapDocumentEditor(task));

        String result = toolResults(server.requests().get(1)).get("r1");
        assertTrue(result.contains("does not exist yet"), result);
    }

    @Test
    void aBlankFinalAnswerAfterChangesReportsTheChangedDocuments() throws LlmException {
        AtomicInteger round = new AtomicInteger();
        OpenAiTestServer server = server(request -> round.getAndIncrement() == 0
                ? toolCalls(ToolCall.of("w1", "write", "document", DAILY, "content", "# 2026-11-28\n"))
                : text(""));
        DiaryTask task = diaryTask();

        String outcome = client(server.settings()).updateDiary(task, new MapDocumentEditor(task));

        assertEquals("Updated " + DAILY + ".", outcome);
    }

    @Test
    void theToolLoopStopsAtItsLimit() {
        OpenAiTestServer server = server(request -> toolCalls(ToolCall.of("again", "read", "document", DAILY)));
        DiaryTask task = diaryTask();
        OpenAiLlmClient client = client(server.settings());

        LlmException e = assertThrows(LlmException.class, () -> client.updateDiary(task, new MapDocumentEditor(task)));

        assertFalse(e.retryable());
        assertTrue(e.getMessage().contains(String.valueOf(OpenAiLlmClient.MAX_TOOL_ROUNDS)), e.getMessage());
        assertEquals(OpenAiLlmClient.MAX_TOOL_ROUNDS, server.requests().size());
    }

    @Test
    void aFailedCallInsideTheToolLoopIsAnLlmException() {
        AtomicInteger round = new AtomicInteger();
        OpenAiTestServer server = server(request -> round.getAndIncrement() == 0
                ? toolCalls(ToolCall.of("r1", "read", "document", DAILY))
                : status(502, "bad gateway"));
        DiaryTask task = diaryTask();
        OpenAiLlmClient client = client(server.settings());

        LlmException e = assertThrows(LlmException.class, () -> client.updateDiary(task, new MapDocumentEditor(task)));

        assertTrue(e.retryable());
        assertTrue(e.getMessage().contains("502"), e.getMessage());
    }

    // ----------------------------------------------------------------- settings

    @Test
    void idNamesTheModel() {
        OpenAiTestServer server = server(request -> text(VALID_SUMMARY));
        assertEquals("openai:test-model", client(server.settings()).id());
    }

    @Test
    void settingsComeFromTheEnvironment() {
        Map<String, String> env = new HashMap<>(Map.of(
                "LLM_BASE_URL", "http://127.0.0.1:8000/v1",
                "LLM_API_KEY", "sk-secret-value",
                "LLM_MODEL", "qwen3-32b"));
        OpenAiSettings defaults = OpenAiSettings.fromEnv(env);
        assertEquals("http://127.0.0.1:8000/v1", defaults.baseUrl());
        assertEquals("sk-secret-value", defaults.apiKey());
        assertEquals("qwen3-32b", defaults.model());
        assertEquals(OpenAiSettings.DEFAULT_REQUEST_TIMEOUT, defaults.requestTimeout());
        assertEquals(OpenAiSettings.DEFAULT_MAX_OUTPUT_TOKENS, defaults.maxOutputTokens());
        assertEquals(null, defaults.temperature());
        assertFalse(defaults.toString().contains("sk-secret-value"), defaults.toString());

        env.put("LLM_TIMEOUT_SECONDS", "45");
        env.put("LLM_MAX_OUTPUT_TOKENS", "2048");
        env.put("LLM_TEMPERATURE", "0.3");
        OpenAiSettings tuned = OpenAiSettings.fromEnv(env);
        assertEquals(Duration.ofSeconds(45), tuned.requestTimeout());
        assertEquals(2048, tuned.maxOutputTokens());
        assertEquals(0.3, tuned.temperature());

        env.remove("LLM_BASE_URL");
        assertEquals(
                OpenAiSettings.DEFAULT_BASE_URL, OpenAiSettings.fromEnv(env).baseUrl());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "LLM_API_KEY, '', LLM_API_KEY is not set",
        "LLM_MODEL, '  ', LLM_MODEL is not set",
        "LLM_BASE_URL, localhost:8000, LLM_BASE_URL must be an http(s) URL",
        "LLM_BASE_URL, 'http://bad url', LLM_BASE_URL is not a URL",
        "LLM_TIMEOUT_SECONDS, soon, LLM_TIMEOUT_SECONDS must be a positive whole number",
        "LLM_MAX_OUTPUT_TOKENS, 0, LLM_MAX_OUTPUT_TOKENS must be a positive whole number",
        "LLM_TEMPERATURE, 3, LLM_TEMPERATURE must be between 0 and 2",
        "LLM_TEMPERATURE, warm, LLM_TEMPERATURE must be a number"
    })
    void badEnvironmentValuesAreNamed(String variable, String value, String expected) {
        Map<String, String> env =
                new HashMap<>(Map.of("LLM_BASE_URL", "https://llm.example/v1", "LLM_API_KEY", "k", "LLM_MODEL", "m"));
        env.put(variable, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpenAiSettings.fromEnv(env));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    // ------------------------------------------------------------------ helpers

    private static List<String> toolNames(JsonNode body) {
        List<String> names = new ArrayList<>();
        for (JsonNode tool : body.path("tools")) {
            assertEquals("function", tool.path("type").asText());
            names.add(tool.path("function").path("name").asText());
        }
        return names;
    }

    /** tool_call_id → content of the request's tool messages, in order. */
    private static Map<String, String> toolResults(Request request) {
        Map<String, String> results = new LinkedHashMap<>();
        for (JsonNode message : request.messages()) {
            if (message.path("role").asText().equals("tool")) {
                results.put(
                        message.path("tool_call_id").asText(),
                        message.path("content").asText());
            }
        }
        return results;
    }
}
