package io.reme.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import io.reme.llm.LlmFailure;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmStatus;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.metrics.PipelineMetrics;
import io.reme.provider.LlmClient;
import io.reme.provider.MergeTask;
import io.reme.provider.OpenAiLlmClient;
import io.reme.provider.OpenAiTestServer;
import io.reme.provider.offline.OfflineLlmClient;
import io.reme.search.MemoryIndex;
import io.reme.search.MemoryListQuery;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.search.SearchQuery;
import io.reme.search.SourceSpan;
import io.reme.tokens.TokenCounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * EXTRACT requests end to end in the worker, against an in-memory index standing in for the search
 * store: with the offline rules and with a scripted OpenAI-compatible model, a preference and then
 * its contradiction leave one memory with the old content in its history, a repeated statement
 * adds nothing, a failed then successful task leaves one procedural memory that says what worked,
 * and a re-delivered request writes the same memories again instead of new ones.
 */
class MemoryExtractionTest {
    private static final TokenCounter TOKENS = TokenCounter.forEncoding("o200k_base", 1000);
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final String TENANT = "acme";
    private static final String USER = "alice";

    private final ExecutorService calls = Executors.newCachedThreadPool();
    private final MemoryIndex index = MemoryIndex.inMemory();
    private final List<OpenAiTestServer> servers = new ArrayList<>();
    private final AtomicInteger seq = new AtomicInteger();

    @AfterEach
    void close() throws IOException {
        calls.shutdownNow();
        index.close();
        servers.forEach(OpenAiTestServer::close);
    }

    /** The search store as the worker sees it: the nearest memories of one tenant, type and target. */
    private final MemoryLookup lookup = (tenant, type, target, text, k) -> {
        try {
            return index
                    .search(SearchQuery.builder(tenant)
                            .text(text)
                            .k(k)
                            .types(Set.of(type))
                            .targets(Set.of(target))
                            .build())
                    .hits()
                    .stream()
                    .map(h -> new MergeTask.Neighbour(h.memory(), h.scores().vectorScore()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    };

    private RequestHandler handler(LlmClient client) {
        WorkerSettings settings = new WorkerSettings(
                2, Duration.ofSeconds(10), 3, Duration.ZERO, Duration.ZERO, 2000, 100, 5, ZoneId.of("UTC"));
        return new RequestHandler(
                client,
                TOKENS,
                settings,
                null,
                calls,
                RequestHandler.retryPolicy(settings),
                Clock.fixed(NOW, ZoneOffset.UTC),
                PipelineMetrics.NONE,
                lookup);
    }

    private Message user(String text) {
        return new Message(
                TENANT,
                "s1",
                USER,
                "m" + seq.incrementAndGet(),
                Role.USER,
                null,
                NOW.minusSeconds(600 - seq.get()),
                List.of(new Block.Text(text)));
    }

    private Message toolCall(String id, String name, String input) {
        return new Message(
                TENANT,
                "s1",
                USER,
                "m" + seq.incrementAndGet(),
                Role.ASSISTANT,
                null,
                NOW.minusSeconds(600 - seq.get()),
                List.of(new Block.ToolUse(id, name, input)));
    }

    private Message toolResult(String id, String name, String output) {
        return new Message(
                TENANT,
                "s1",
                USER,
                "m" + seq.incrementAndGet(),
                Role.TOOL,
                null,
                NOW.minusSeconds(600 - seq.get()),
                List.of(new Block.ToolResult(id, name, output)));
    }

    private static LlmRequest request(String requestId, Message... messages) {
        return new LlmRequest(
                requestId,
                1,
                LlmKind.EXTRACT,
                List.of(),
                new LlmRequest.Dialog(TENANT, "s1", USER, 0, 0, messages.length - 1, List.of(messages), "en"),
                LlmRequest.Compaction.NONE,
                0,
                NOW);
    }

    /** Handles the request and, unless told otherwise, lets the index apply what it wrote. */
    private RequestHandler.Outcome run(RequestHandler handler, LlmRequest request, boolean indexed) throws Exception {
        RequestHandler.Outcome outcome = handler.handle(request);
        assertEquals(LlmStatus.OK, outcome.result().status(), outcome.result().error());
        if (indexed) {
            for (MemoryRecord memory : outcome.memories()) {
                index.upsert(memory);
            }
            index.refresh();
        }
        return outcome;
    }

    private List<MemoryRecord> memories(MemoryType type) throws IOException {
        return index.list(
                new MemoryListQuery(TENANT, Set.of(type), null, null, null, null, null, null, false, 100, null));
    }

    // ---- offline rules -------------------------------------------------------------------------------

    @Test
    void offlinePreferenceThenContradictionUpdatesOneMemoryKeepingTheOldContent() throws Exception {
        RequestHandler handler = handler(new OfflineLlmClient(TOKENS));
        run(handler, request("r1", user("Hi! I like green tea in the morning."), user("Book me a table.")), true);
        List<MemoryRecord> first = memories(MemoryType.PERSONAL);
        assertEquals(1, first.size(), first.toString());
        assertEquals(USER, first.get(0).target());
        SourceSpan firstSpan = new SourceSpan("s1", "m1", "m2", 2, NOW.minusSeconds(599), NOW.minusSeconds(598));
        assertEquals(List.of(firstSpan), first.get(0).sources(), "the memory names the span it was extracted from");

        run(handler, request("r2", user("Actually I don't like green tea anymore.")), true);
        List<MemoryRecord> after = memories(MemoryType.PERSONAL);
        assertEquals(1, after.size(), "superseded, not added: " + after);
        MemoryRecord memory = after.get(0);
        assertEquals(first.get(0).id(), memory.id(), "the id is stable across the update");
        assertEquals("Actually I don't like green tea anymore.", memory.text());
        assertEquals(2, memory.version());
        assertEquals(
                List.of(firstSpan, new SourceSpan("s1", "m3", "m3", 1, NOW.minusSeconds(597), NOW.minusSeconds(597))),
                memory.sources(),
                "an update adds the span that changed it");
        assertEquals(
                "I like green tea in the morning.", memory.history().get(0).text(), "the sentence, not the message");
    }

    @Test
    void offlineRepeatedStatementAddsNothing() throws Exception {
        RequestHandler handler = handler(new OfflineLlmClient(TOKENS));
        run(handler, request("r1", user("My favourite city is Lisbon.")), true);
        RequestHandler.Outcome again = run(handler, request("r2", user("my favourite city is Lisbon!")), true);
        assertEquals(List.of(), again.memories(), "nothing to write");
        assertTrue(
                again.result().payload().contains("unchanged=1"), again.result().payload());
        List<MemoryRecord> personal = memories(MemoryType.PERSONAL);
        assertEquals(1, personal.size());
        assertEquals(1, personal.get(0).version());
    }

    @Test
    void offlineFailedThenSucceededTaskLeavesOneProceduralMemoryOfWhatWorked() throws Exception {
        RequestHandler handler = handler(new OfflineLlmClient(TOKENS));
        run(
                handler,
                request(
                        "r1",
                        user("Deploy the website."),
                        toolCall("c1", "deploy", "{\"env\":\"prod\"}"),
                        toolResult("c1", "deploy", "Error: permission denied for /srv/www")),
                true);
        List<MemoryRecord> failed = memories(MemoryType.PROCEDURAL);
        assertEquals(1, failed.size());
        assertTrue(
                failed.get(0).text().contains("permission denied"),
                failed.get(0).text());

        run(
                handler,
                request(
                        "r2",
                        user("Deploy the website."),
                        toolCall("c2", "deploy", "{\"env\":\"prod\",\"sudo\":true}"),
                        toolResult("c2", "deploy", "deployed 12 files")),
                true);
        List<MemoryRecord> procedural = memories(MemoryType.PROCEDURAL);
        assertEquals(1, procedural.size(), procedural.toString());
        MemoryRecord memory = procedural.get(0);
        assertEquals("deploy the website", memory.target());
        assertEquals(failed.get(0).id(), memory.id());
        assertTrue(memory.text().contains("what worked was deploy {\"env\":\"prod\",\"sudo\":true}"), memory.text());
        assertEquals(2, memory.version());
        assertTrue(memory.history().get(0).text().contains("permission denied"));

        List<MemoryRecord> tools = memories(MemoryType.TOOL);
        assertEquals(1, tools.size(), "one tool memory for deploy: " + tools);
        assertEquals("deploy", tools.get(0).target());
        assertTrue(
                tools.get(0).text().contains("Worked with {\"env\":\"prod\",\"sudo\":true}"),
                tools.get(0).text());
    }

    @Test
    void redeliveryWritesTheSameMemoriesNotNewOnes() throws Exception {
        RequestHandler handler = handler(new OfflineLlmClient(TOKENS));
        LlmRequest request = request("r1", user("I prefer aisle seats."), user("My dog is called Rex."));
        // The worker crashed after writing but before the index applied anything: the same ids again.
        RequestHandler.Outcome first = run(handler, request, false);
        RequestHandler.Outcome second = run(handler, request, true);
        assertEquals(2, first.memories().size());
        assertEquals(
                first.memories().stream().map(MemoryRecord::id).toList(),
                second.memories().stream().map(MemoryRecord::id).toList());
        // Once applied, a third delivery changes nothing.
        RequestHandler.Outcome third = run(handler, request, true);
        assertEquals(List.of(), third.memories());
        assertEquals(2, memories(MemoryType.PERSONAL).size());
    }

    @Test
    void extractionOffAnswersAtOnceWithoutAModelCall() throws Exception {
        LlmClient refusing = new LlmClient() {
            @Override
            public String id() {
                return "refusing";
            }

            @Override
            public String summarize(io.reme.provider.SummaryTask task) {
                throw new AssertionError("not called");
            }

            @Override
            public String updateDiary(io.reme.provider.DiaryTask task, io.reme.provider.DocumentEditor editor) {
                throw new AssertionError("not called");
            }
        };
        WorkerSettings settings = new WorkerSettings(
                2, Duration.ofSeconds(10), 3, Duration.ZERO, Duration.ZERO, 2000, 100, 5, ZoneId.of("UTC"));
        RequestHandler off = new RequestHandler(
                refusing,
                TOKENS,
                settings,
                null,
                calls,
                RequestHandler.retryPolicy(settings),
                Clock.fixed(NOW, ZoneOffset.UTC),
                PipelineMetrics.NONE,
                null);
        RequestHandler.Outcome outcome = off.handle(request("r1", user("I like green tea.")));
        assertEquals(LlmStatus.OK, outcome.result().status());
        assertEquals(List.of(), outcome.memories());
        // With extraction on, the same client cannot extract: the request fails instead of passing silently.
        assertEquals(
                LlmStatus.FAILED,
                handler(refusing)
                        .handle(request("r2", user("I like green tea.")))
                        .result()
                        .status());
    }

    @Test
    void sentencesWithoutPreferencesAreNotRemembered() throws Exception {
        RequestHandler.Outcome outcome = run(
                handler(new OfflineLlmClient(TOKENS)),
                request("r1", user("What time is it in Tokyo?"), user("Thanks, that helps.")),
                true);
        assertEquals(List.of(), outcome.memories());
    }

    // ---- scripted OpenAI-compatible model ------------------------------------------------------------

    /**
     * A model that extracts "Alice likes X" / "Alice no longer likes X" from "I like X" / "I don't like X",
     * procedural memories from deploy runs, and merges: NOOP for the same content, UPDATE the first
     * existing memory otherwise, ADD when there is none.
     */
    private static OpenAiTestServer.Reply script(OpenAiTestServer.Request request) {
        String system = request.content("system");
        String prompt = request.content("user");
        if (system.startsWith("You maintain")) {
            String conversation = prompt.substring(0, prompt.indexOf("# Task"));
            List<String> memories = new ArrayList<>();
            if (prompt.contains("Extract personal")) {
                if (conversation.contains("don't like green tea")) {
                    memories.add("{\"content\":\"Alice no longer likes green tea\",\"about\":\"green tea\"}");
                } else if (conversation.contains("like green tea")) {
                    memories.add("{\"content\":\"Alice likes green tea\",\"about\":\"green tea\"}");
                }
            } else if (prompt.contains("Extract procedural") && conversation.contains("deploy")) {
                memories.add(
                        conversation.contains("deployed")
                                ? "{\"target\":\"deploy the website\",\"content\":\"Deploying failed without sudo; deploy with "
                                        + "sudo=true worked\"}"
                                : "{\"target\":\"deploy the website\",\"content\":\"Deploying failed: permission denied\"}");
            }
            return OpenAiTestServer.text("```json\n{\"memories\": [" + String.join(",", memories) + "]}\n```");
        }
        try {
            String candidate = Json.MAPPER
                    .readTree(section(prompt, "# Candidate"))
                    .path("content")
                    .asText();
            JsonNode existing = Json.MAPPER.readTree(section(prompt, "# Existing memories"));
            if (existing.isEmpty()) {
                return OpenAiTestServer.text("{\"action\":\"ADD\",\"content\":\"" + candidate + "\"}");
            }
            for (JsonNode memory : existing) {
                if (memory.path("content").asText().equals(candidate)) {
                    return OpenAiTestServer.text("{\"action\":\"NOOP\"}");
                }
            }
            return OpenAiTestServer.text("{\"action\":\"UPDATE\",\"id\":\""
                    + existing.get(0).path("id").asText() + "\",\"content\":\"" + candidate + "\"}");
        } catch (IOException e) {
            return OpenAiTestServer.status(400, "unreadable merge prompt: " + e.getMessage());
        }
    }

    private static String section(String prompt, String heading) {
        int start = prompt.indexOf(heading) + heading.length();
        int end = prompt.indexOf("\n# ", start);
        return prompt.substring(start, end).strip();
    }

    private RequestHandler modelHandler() {
        OpenAiTestServer server = OpenAiTestServer.startWithRequests(MemoryExtractionTest::script);
        servers.add(server);
        return handler(new OpenAiLlmClient(server.settings()));
    }

    @Test
    void modelPreferenceThenContradictionUpdatesOneMemoryAndRepeatsAreNoops() throws Exception {
        RequestHandler handler = modelHandler();
        run(handler, request("r1", user("I like green tea.")), true);
        RequestHandler.Outcome repeat = run(handler, request("r2", user("As I said, I like green tea.")), true);
        assertEquals(List.of(), repeat.memories(), "a repeated statement adds nothing");
        run(handler, request("r3", user("I don't like green tea any more.")), true);

        List<MemoryRecord> personal = memories(MemoryType.PERSONAL);
        assertEquals(1, personal.size(), personal.toString());
        MemoryRecord memory = personal.get(0);
        assertEquals("Alice no longer likes green tea", memory.text());
        assertEquals(USER, memory.target());
        assertEquals(2, memory.version());
        assertEquals("Alice likes green tea", memory.history().get(0).text());
        assertEquals("green tea", memory.metadata().get("about"));
    }

    @Test
    void modelFailedThenSucceededTaskLeavesOneProceduralMemory() throws Exception {
        RequestHandler handler = modelHandler();
        run(
                handler,
                request(
                        "r1",
                        user("Deploy the website."),
                        toolCall("c1", "deploy", "{}"),
                        toolResult("c1", "deploy", "permission denied")),
                true);
        run(
                handler,
                request(
                        "r2",
                        user("Deploy the website."),
                        toolCall("c2", "deploy", "{\"sudo\":true}"),
                        toolResult("c2", "deploy", "deployed")),
                true);
        List<MemoryRecord> procedural = memories(MemoryType.PROCEDURAL);
        assertEquals(1, procedural.size(), procedural.toString());
        assertEquals(
                "Deploying failed without sudo; deploy with sudo=true worked",
                procedural.get(0).text());
        assertEquals(
                "Deploying failed: permission denied",
                procedural.get(0).history().get(0).text());
        assertFalse(memories(MemoryType.TOOL).iterator().hasNext(), "this model extracts no tool memories");
    }

    /**
     * The scripted model with a small context: an extraction prompt whose conversation holds more than
     * two of the numbered lines, or the word "enormous", is refused as too long.
     */
    private RequestHandler smallContextHandler(List<String> refused) {
        OpenAiTestServer server = OpenAiTestServer.startWithRequests(request -> {
            String prompt = request.content("user");
            if (request.content("system").startsWith("You maintain")) {
                String conversation = prompt.substring(0, prompt.indexOf("# Task"));
                long lines =
                        conversation.lines().filter(l -> l.contains("Line ")).count();
                if (lines > 2 || conversation.contains("enormous")) {
                    refused.add(conversation);
                    return OpenAiTestServer.contextLengthExceeded();
                }
            }
            return script(request);
        });
        servers.add(server);
        return handler(new OpenAiLlmClient(server.settings()));
    }

    @Test
    void aSpanRefusedAsTooLongIsExtractedHalfByHalf() throws Exception {
        List<String> refused = new ArrayList<>();
        RequestHandler.Outcome outcome = run(
                smallContextHandler(refused),
                request(
                        "r1",
                        user("Line 1: I like green tea."),
                        user("Line 2: the weather."),
                        user("Line 3: the news."),
                        user("Line 4: goodbye.")),
                true);
        assertEquals(3, refused.size(), "each of the three extractors was refused the whole span once");
        List<MemoryRecord> personal = memories(MemoryType.PERSONAL);
        assertEquals(
                List.of("Alice likes green tea"),
                personal.stream().map(MemoryRecord::text).toList());
        assertEquals(Set.copyOf(personal.stream().map(MemoryRecord::id).toList()), outcome.newMemoryIds());
    }

    @Test
    void aSingleMessageLongerThanTheContextFailsAsContextLength() throws Exception {
        RequestHandler.Outcome outcome =
                smallContextHandler(new ArrayList<>()).handle(request("r1", user("Line 1: enormous"), user("x")));
        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertEquals(LlmFailure.CONTEXT_LENGTH, outcome.result().failure());
        assertEquals(List.of(), outcome.memories());
    }

    @Test
    void aMergeNamingAMemoryItWasNotShownIsRefused() throws Exception {
        OpenAiTestServer server = OpenAiTestServer.start(body -> {
            String system = body.path("messages").get(0).path("content").asText();
            return system.startsWith("You maintain")
                    ? OpenAiTestServer.text("{\"memories\":[{\"content\":\"Alice likes tea\"}]}")
                    : OpenAiTestServer.text(
                            "{\"action\":\"UPDATE\",\"id\":\"" + UUID.randomUUID() + "\",\"content\":\"x\"}");
        });
        servers.add(server);
        RequestHandler.Outcome outcome =
                handler(new OpenAiLlmClient(server.settings())).handle(request("r1", user("I like tea.")));
        assertEquals(LlmStatus.FAILED, outcome.result().status());
        assertTrue(
                outcome.result().error().contains("not one of the existing memories"),
                outcome.result().error());
        assertEquals(List.of(), outcome.memories());
    }
}
