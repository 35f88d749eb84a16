package io.reme.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.reme.client.langchain4j.RemeChatMemoryStore;
import io.reme.client.springai.RemeChatMemoryRepository;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * The client and both adapters against the demo jar run as a separate process, started once for the class: every
 * route the client covers, and LangChain4j's and Spring AI's own {@code MessageWindowChatMemory} over the adapters.
 */
@Tag("integration")
class RemeClientIT {
    @TempDir
    static Path dir;

    private static DemoProcess app;
    private static String url;
    private static RemeClient client;

    @BeforeAll
    static void start() throws Exception {
        Path jar = DemoProcess.jar();
        Path data = dir.resolve("data");
        app = DemoProcess.start(jar, data, Path.of("target", "reme-client-it-app.log"));
        url = app.awaitReady(Duration.ofSeconds(120));
        String key = Files.readString(data.resolve("api-key"), StandardCharsets.UTF_8)
                .strip();
        client = RemeClient.builder(url, key).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** A session exists once the pipeline processed its first message: until then it is a 404. */
    private static SessionContext contextWith(String session, int messages) {
        return await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .ignoreException(RemeException.NotFound.class)
                .until(() -> client.context(session, true), c -> c.messages().size() == messages);
    }

    @Test
    void messagesGoInAndTheContextComesOutInTheFullViewAndBothReadyFormats() {
        String session = unique("java-");
        IngestAnswer sent = client.sendMessages(List.of(
                MessageEnvelope.text(session, "pat", "user", "Always answer in metric units."),
                MessageEnvelope.text(session, "pat", "assistant", "Noted: metric units from now on.")));
        assertEquals(2, sent.accepted());
        assertTrue(sent.records().getFirst().key().endsWith("/" + session));

        SessionContext context = contextWith(session, 2);
        assertEquals(session, context.session());
        assertEquals("pat", context.user());
        assertTrue(context.tokens().messages() > 0);
        OpenAiContext openAi = client.openAiContext(session);
        assertEquals(
                List.of("user", "assistant"),
                openAi.messages().stream().map(OpenAiMessage::role).toList());
        assertEquals(
                "Always answer in metric units.", openAi.messages().getFirst().text());
        AnthropicContext anthropic = client.anthropicContext(session);
        assertEquals("user", anthropic.messages().getFirst().role());
        assertTrue(client.sessions(SessionFilter.all().withLimit(1))
                .anyMatch(s -> s.session().equals(session)));
        assertThrows(RemeException.NotFound.class, () -> client.openAiContext(unique("none-")));
    }

    @Test
    void aMemoryIsWrittenFoundRevisedListedPageByPageAndDeleted() {
        String user = unique("jv");
        String word = unique("quokka");
        MemoryWritten written = client.createMemory(MemoryCreate.personal(user, "Pat keeps a " + word + " named Pip")
                .withMetadata(Map.of("origin", "java")));
        assertTrue(written.visible());
        String id = written.id();
        client.createMemory(MemoryCreate.personal(user, "Pat drinks tea at four"));

        List<Hit> hits =
                client.search(SearchRequest.of(word).withUsers(user).withK(5)).hits();
        assertEquals(id, hits.getFirst().id());
        MemoryWritten revised = client.updateMemory(
                id, MemoryUpdate.content("Pat keeps a " + word + " named Max").ifVersion(1));
        assertEquals(2, revised.version());
        RemeException.Conflict stale = assertThrows(
                RemeException.Conflict.class,
                () -> client.updateMemory(id, MemoryUpdate.content("lost").ifVersion(1)));
        assertEquals("version_conflict", stale.code());
        Memory fetched = client.getMemory(id);
        assertTrue(fetched.content().endsWith("named Max"));
        assertTrue(fetched.history().getFirst().content().endsWith("named Pip"));
        assertEquals("java", fetched.metadata().get("origin"));

        MemoryFilter theirs = MemoryFilter.all().withUsers(user).withLimit(1);
        MemoryPage first = client.listMemories(theirs, null);
        assertEquals(1, first.memories().size());
        assertTrue(first.nextCursor() != null, "two memories in pages of one: a next page");
        assertEquals(2, client.memories(theirs).count());

        client.deleteMemory(id);
        assertThrows(RemeException.NotFound.class, () -> client.getMemory(id));
    }

    @Test
    void aUserIsErasedAndTheTenantsErasureWantsItsName() {
        String user = unique("gone");
        client.createMemory(MemoryCreate.personal(user, "To be forgotten"));

        ErasureStatus status = client.eraseUser(user);
        assertEquals(user, status.user());
        assertEquals(status.erasureId(), client.userErasure(user).erasureId());
        RemeException.BadRequest confirm =
                assertThrows(RemeException.BadRequest.class, () -> client.eraseTenant("not-this-tenant"));
        assertEquals("confirmation_required", confirm.code());
    }

    @Test
    void theServersRefusalsArriveAsTypedExceptions() {
        RemeClient stranger =
                RemeClient.builder(url, "not-a-key-of-anyone-123").maxRetries(0).build();
        assertThrows(RemeException.Unauthorized.class, () -> stranger.search(SearchRequest.of("x")));
        RemeException.BadRequest bad = assertThrows(
                RemeException.BadRequest.class,
                () -> client.search(SearchRequest.of("x").withK(0)));
        assertTrue(bad.detail().contains("k"), bad.detail());
        assertThrows(RemeException.NotFound.class, () -> client.diary("nobody", "MEMORY"));
    }

    @Test
    void langChainsMessageWindowChatMemoryKeepsItsConversationInASession() {
        String session = unique("lc-");
        RemeChatMemoryStore store = RemeChatMemoryStore.forUser(client, "lee");
        ChatMemory memory = langChainMemory(store, session, 20);
        ToolExecutionRequest call = ToolExecutionRequest.builder()
                .id("call_1")
                .name("weather")
                .arguments("{\"city\":\"Oslo\"}")
                .build();
        List<ChatMessage> turn = List.of(
                SystemMessage.from("Answer in one sentence."),
                UserMessage.from("What is the weather in Oslo?"),
                AiMessage.from(call),
                ToolExecutionResultMessage.from(call, "rainy, 7 degrees"),
                AiMessage.from("It rains in Oslo, 7 degrees."));
        turn.forEach(memory::add);

        // Another memory over the same store, as after a restart: the conversation comes back from the session.
        assertEquals(turn, langChainMemory(store, session, 20).messages());
        assertEquals(5, client.context(session, true).messages().size(), "each message sent once");

        // A window smaller than the session: the framework's list is the session's tail, only the new message goes.
        ChatMemory small = langChainMemory(store, session, 3);
        small.add(UserMessage.from("And tomorrow?"));
        assertEquals(6, client.context(session, true).messages().size());
        assertEquals(UserMessage.from("And tomorrow?"), small.messages().getLast());

        assertThrows(UnsupportedOperationException.class, memory::clear);
    }

    private static ChatMemory langChainMemory(RemeChatMemoryStore store, String session, int maxMessages) {
        // Both frameworks name their class MessageWindowChatMemory (and UserMessage): LangChain4j's by its full name.
        return dev.langchain4j.memory.chat.MessageWindowChatMemory.builder()
                .id(session)
                .maxMessages(maxMessages)
                .chatMemoryStore(store)
                .build();
    }

    @Test
    void springAisMessageWindowChatMemoryKeepsItsConversationInASession() {
        String conversation = unique("sa-");
        RemeChatMemoryRepository repository = RemeChatMemoryRepository.forUser(client, unique("sam"));
        MessageWindowChatMemory memory = MessageWindowChatMemory.builder()
                .chatMemoryRepository(repository)
                .maxMessages(10)
                .build();

        memory.add(
                conversation,
                List.of(
                        new org.springframework.ai.chat.messages.UserMessage("I prefer window seats."),
                        new AssistantMessage("Noted: window seats.")));
        memory.add(conversation, List.of(new org.springframework.ai.chat.messages.UserMessage("Book me to Rome.")));
        memory.add(
                conversation,
                List.of(
                        AssistantMessage.builder()
                                .content("")
                                .toolCalls(List.of(new AssistantMessage.ToolCall(
                                        "call_9", "function", "book_flight", "{\"to\":\"FCO\"}")))
                                .build(),
                        ToolResponseMessage.builder()
                                .responses(List.of(
                                        new ToolResponseMessage.ToolResponse("call_9", "book_flight", "seat 12A")))
                                .build()));
        memory.add(conversation, List.of(new AssistantMessage("Booked, window seat 12A.")));

        List<Message> read = memory.get(conversation);
        assertEquals(
                List.of(
                        "I prefer window seats.",
                        "Noted: window seats.",
                        "Book me to Rome.",
                        "",
                        "seat 12A",
                        "Booked, window seat 12A."),
                read.stream()
                        .map(m -> m instanceof ToolResponseMessage tool
                                ? tool.getResponses().getFirst().responseData()
                                : m.getText())
                        .toList());
        assertEquals(
                "book_flight",
                ((ToolResponseMessage) read.get(4)).getResponses().getFirst().name());
        assertEquals(6, client.context(conversation, true).messages().size(), "each message sent once");
        assertEquals(List.of(conversation), repository.findConversationIds());
        assertThrows(UnsupportedOperationException.class, () -> memory.clear(conversation));
    }
}
