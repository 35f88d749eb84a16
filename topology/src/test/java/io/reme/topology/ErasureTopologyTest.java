package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reme.app.ConversationGenerator;
import io.reme.app.ConversationGenerator.Envelope;
import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.DiaryEditProcessor;
import io.reme.diary.EditSignature;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureMarker;
import io.reme.erasure.ErasureReport;
import io.reme.erasure.ErasureStores;
import io.reme.json.Json;
import io.reme.llm.LlmKind;
import io.reme.llm.LlmRequest;
import io.reme.llm.LlmResult;
import io.reme.session.ArchivedMessage;
import io.reme.session.SessionCounters;
import io.reme.session.SessionHeader;
import io.reme.session.SessionSettings;
import io.reme.session.SessionStores;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Erasure requests at the session and diary processors: a signed request deletes exactly the
 * user's sessions (every store) and documents, tombstones their stored tool outputs and documents,
 * marks the dialog topic and keeps a report; an unsigned one is dead-lettered and deletes nothing.
 */
class ErasureTopologyTest {
    private static final Topics TOPICS = SessionDriver.TOPICS;
    private static final Instant T0 = Instant.parse("2026-11-28T15:00:00Z");

    @TempDir
    Path stateDir;

    private final SessionSettings settings = SessionSettings.defaults();
    private SessionDriver driver;
    private final Map<String, Map<String, byte[]>> seen = new HashMap<>();

    @BeforeEach
    void start() {
        driver = SessionDriver.of(
                settings,
                TokenCounter.forEncoding("o200k_base", 0),
                DriverProperties.of("erasure-test", stateDir),
                null);
        // Every tool output is over the recent limit, so each is stored on tool-results.
        ConversationGenerator generator = new ConversationGenerator(3, 1, 120_000);
        send(generator.session("acme", "s1", "alice", 8, T0));
        send(generator.session("acme", "s2", "bob", 8, T0));
        send(generator.session("globex", "s3", "alice", 8, T0));
        for (String[] doc : new String[][] {{"acme", "alice"}, {"acme", "bob"}, {"globex", "alice"}}) {
            DiaryEdit edit = new DiaryEdit(
                    "e-" + doc[0] + doc[1], doc[0], doc[1], "MEMORY", 0, "# Notes\n- tea\n", "test", T0, List.of());
            signed(driver.diaryEdits(), edit.key().key(), Json.bytes(edit), null);
        }
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aSignedErasureDeletesExactlyTheUsersSessionsAndDocuments() {
        Map<String, byte[]> toolsBefore = latest(TOPICS.toolResults());
        assertEquals(6, toolsBefore.values().stream().filter(v -> v != null).count(), "two outputs per session");

        Erasure erasure = Erasure.ofUser("er-1", "acme", "alice", T0.plusSeconds(60), 3);
        long aliceIncarnation = driver.header("acme", "s1").compaction().incarnation();
        signed(driver.messages(), erasure.key(), erasure.toJson(), erasure.erasureId());
        signed(driver.diaryEdits(), erasure.key(), erasure.toJson(), erasure.erasureId());

        assertNull(driver.header("acme", "s1"), "alice's session is gone");
        assertNotNull(driver.header("acme", "s2"), "bob's stays");
        assertNotNull(driver.header("globex", "s3"), "the other tenant's alice stays");
        assertEquals(0, driver.entries(SessionStores.MESSAGES, "acme/s1/").size());
        assertEquals(8, driver.entries(SessionStores.MESSAGES, "acme/s2/").size());
        for (String store : List.of(SessionStores.MESSAGE_IDS, SessionStores.DIARY_SPANS)) {
            assertEquals(0, driver.entries(store, "acme/s1/").size(), store);
        }
        for (KeyValue<String, String> e : driver.<String>entries(SessionStores.ACTIVITY)) {
            assertTrue(!e.key.endsWith("acme/s1"), "activity entry left: " + e.key);
        }

        ErasureReport sessions =
                driver.<String, ErasureReport>store(ErasureStores.SESSIONS).get("acme/alice");
        assertEquals("er-1", sessions.erasureId());
        assertEquals(1, sessions.sessions());
        assertEquals(8, sessions.messages());
        assertEquals(2, sessions.toolOutputs());
        assertEquals(3, sessions.memories(), "the API's count travels with the request");

        Map<String, byte[]> tools = latest(TOPICS.toolResults());
        assertEquals(4, tools.values().stream().filter(v -> v != null).count(), "alice's two outputs tombstoned");
        assertEquals(toolsBefore.keySet(), tools.keySet());

        // The dialog topic carries a marker for the file sink, keyed by the erasure, signed over where the
        // partition read the request and when it was asked for.
        List<TestRecord<String, byte[]>> dialog = dialog();
        TestRecord<String, byte[]> last = dialog.get(dialog.size() - 1);
        assertEquals("acme/alice", last.key());
        assertNull(last.value());
        ErasureMarker marker = marker(last);
        assertNotNull(marker, "signed for the dialog sink");
        assertEquals("er-1", marker.erasureId());
        assertEquals(erasure.requestedAt(), marker.requestedAt());
        assertEquals(0, marker.partition());
        assertTrue(aliceIncarnation > 0, "alice's session began after incarnations were kept");
        assertTrue(marker.erased(0, aliceIncarnation), "the marker covers alice's session");
        assertFalse(marker.erased(1, aliceIncarnation), "on its own partition only");
        assertNull(ErasureMarker.verified(
                settings.requestSecret(),
                "acme/" + Erasure.ALL_USERS,
                name -> DeadLetterHeaders.read(last.headers(), name)));

        KeyValueStore<String, DiaryDocument> documents = driver.store(DiaryEditProcessor.STORE);
        assertNull(documents.get("acme/alice/MEMORY"));
        assertNotNull(documents.get("acme/bob/MEMORY"));
        assertNotNull(documents.get("globex/alice/MEMORY"));
        Map<String, byte[]> diary = latest(TOPICS.diary());
        assertTrue(diary.containsKey("acme/alice/MEMORY"));
        assertNull(diary.get("acme/alice/MEMORY"), "tombstoned on the compacted topic");
        assertNotNull(diary.get("acme/bob/MEMORY"));
        assertEquals(
                1,
                driver.<String, ErasureReport>store(ErasureStores.DOCUMENTS)
                        .get("acme/alice")
                        .documents());
    }

    /** {@code user} talks in acme's session {@code session} until its window is compacted: that request. */
    private LlmRequest talkUntilCompacted(String session, String user, Instant from) {
        for (int i = 0; i < 200; i++) {
            Instant at = from.plusSeconds(i);
            ObjectNode message = SessionDriver.message(
                    "acme",
                    session,
                    user + "-" + i,
                    i % 2 == 0 ? "user" : "assistant",
                    "turn " + i + " " + SessionDriver.repeatedWord(4_000),
                    at);
            message.put("user", user);
            driver.send(message, at);
            List<LlmRequest> asked = driver.requestsOf(LlmKind.COMPACT).stream()
                    .filter(r -> r.dialog().session().equals(session))
                    .toList();
            if (!asked.isEmpty()) {
                return asked.get(0);
            }
        }
        throw new AssertionError("no compaction of " + session + " after 200 messages");
    }

    @Test
    void aResultOfTheErasedSessionIsNotAppliedToTheSessionWrittenAgainUnderItsId() {
        LlmRequest alices = talkUntilCompacted("s1", "alice", T0.plusSeconds(10));
        Erasure erasure = Erasure.ofUser("er-1", "acme", "alice", T0.plusSeconds(500), 0);
        signed(driver.messages(), erasure.key(), erasure.toJson(), erasure.erasureId());
        assertNull(driver.header("acme", "s1"));

        // Another user writes to the same session id: a new life, with a compaction of its own, same epoch.
        LlmRequest carols = talkUntilCompacted("s1", "carol", T0.plusSeconds(600));
        assertEquals(alices.epoch(), carols.epoch(), "the epoch starts again after the erasure");
        assertTrue(
                carols.dialog().incarnation() > alices.dialog().incarnation(),
                carols.dialog().incarnation() + " after " + alices.dialog().incarnation());
        assertFalse(carols.requestId().equals(alices.requestId()), "the request ids of two lives differ");

        // Alice's result comes late (a slow worker, or replayed from llm.results): signed, and never applied.
        driver.dlq().readRecordsToList();
        driver.sendResult(
                LlmResult.ok(alices, SessionDriver.summary("alice's erased work"), 1, T0), T0.plusSeconds(900));
        SessionHeader header = driver.header("acme", "s1");
        assertEquals("carol", header.user());
        assertEquals(carols.requestId(), header.pending().requestId(), "carol's compaction still pending");
        assertEquals(0, header.summaryVersion(), "no summary applied");
        assertEquals(1, header.counters().get(SessionCounters.Counter.EARLIER_RESULTS));
        var dead = driver.dlq().readRecordsToList();
        assertEquals(1, dead.size());
        assertEquals("EARLIER_INCARNATION", DeadLetterHeaders.read(dead.get(0).headers(), DeadLetterHeaders.REASON));

        // Carol's own result applies.
        driver.sendResult(LlmResult.ok(carols, SessionDriver.summary("carol's work"), 1, T0), T0.plusSeconds(901));
        assertEquals(1, driver.header("acme", "s1").summaryVersion());

        // The lines it archives name the session's new life, which no marker of the erasure deletes, however late.
        List<TestRecord<String, byte[]>> dialog = dialog();
        ErasureMarker marker = dialog.stream()
                .filter(r -> r.value() == null)
                .map(ErasureTopologyTest.this::marker)
                .findFirst()
                .orElseThrow();
        List<ArchivedMessage> archived = dialog.stream()
                .filter(r -> r.value() != null)
                .map(r -> archivedLine(r.value()))
                .toList();
        assertFalse(archived.isEmpty(), "carol's compaction archived her oldest messages");
        for (ArchivedMessage line : archived) {
            assertEquals("carol", line.user());
            assertEquals(new ArchivedMessage.Origin(0, carols.dialog().incarnation()), line.origin());
            assertFalse(marker.erased(line.origin().partition(), line.origin().incarnation()));
        }
        assertTrue(marker.erased(0, alices.dialog().incarnation()), "alice's lines were the marker's to delete");
    }

    private List<TestRecord<String, byte[]>> dialog() {
        return driver.driver()
                .createOutputTopic(TOPICS.dialog(), new StringDeserializer(), new ByteArrayDeserializer())
                .readRecordsToList();
    }

    private static ArchivedMessage archivedLine(byte[] value) {
        try {
            return Json.MAPPER.readValue(value, ArchivedMessage.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ErasureMarker marker(TestRecord<String, byte[]> record) {
        return ErasureMarker.verified(
                settings.requestSecret(), record.key(), name -> DeadLetterHeaders.read(record.headers(), name));
    }

    private static String reason(TestRecord<byte[], byte[]> dead) {
        return DeadLetterHeaders.read(dead.headers(), DeadLetterHeaders.REASON);
    }

    @Test
    void capturedDiaryEditsReplayedAfterTheErasureBringNothingBack() {
        // Captured from diary.edits before the erasure: alice's first edit, and one more on top of it.
        DiaryEdit second = new DiaryEdit(
                "e-2",
                "acme",
                "alice",
                "2026-11-28",
                0,
                "# 2026-11-28\n- met bob\n",
                "test",
                T0.plusSeconds(5),
                List.of());
        signed(driver.diaryEdits(), second.key().key(), Json.bytes(second), null);
        DiaryEdit first =
                new DiaryEdit("e-acmealice", "acme", "alice", "MEMORY", 0, "# Notes\n- tea\n", "test", T0, List.of());
        Erasure erasure = Erasure.ofUser("er-1", "acme", "alice", T0.plusSeconds(60), 0);
        signed(driver.diaryEdits(), erasure.key(), erasure.toJson(), erasure.erasureId());
        KeyValueStore<String, DiaryDocument> documents = driver.store(DiaryEditProcessor.STORE);
        assertNull(documents.get("acme/alice/MEMORY"));
        assertNull(documents.get("acme/alice/2026-11-28"));
        driver.dlq().readRecordsToList();

        // Produced again, signature intact, base version 0 as the erased documents' first edits had.
        signed(driver.diaryEdits(), first.key().key(), Json.bytes(first), null);
        signed(driver.diaryEdits(), second.key().key(), Json.bytes(second), null);
        assertNull(documents.get("acme/alice/MEMORY"), "MEMORY.md does not come back");
        assertNull(documents.get("acme/alice/2026-11-28"), "nor the diary page");
        var dead = driver.dlq().readRecordsToList();
        assertEquals(2, dead.size());
        dead.forEach(d -> assertEquals("EARLIER_INCARNATION", reason(d)));
        assertEquals(
                "er-1",
                driver.<String, ErasureReport>store(ErasureStores.DOCUMENTS)
                        .get("acme/alice")
                        .erasureId(),
                "the erasure's report stands");

        // An edit made after the erasure is alice's new data, and applies; bob's were never concerned.
        DiaryEdit fresh = new DiaryEdit(
                "e-3", "acme", "alice", "MEMORY", 0, "# Notes\n- coffee\n", "test", T0.plusSeconds(61), List.of());
        signed(driver.diaryEdits(), fresh.key().key(), Json.bytes(fresh), null);
        assertEquals("# Notes\n- coffee\n", documents.get("acme/alice/MEMORY").content());
        assertNotNull(documents.get("acme/bob/MEMORY"));
    }

    @Test
    void aReplayedErasureRequestErasesNothingWrittenSince() {
        Erasure erasure = Erasure.ofUser("er-1", "acme", "alice", T0.plusSeconds(60), 0);
        signed(driver.messages(), erasure.key(), erasure.toJson(), erasure.erasureId());
        signed(driver.diaryEdits(), erasure.key(), erasure.toJson(), erasure.erasureId());
        assertNull(driver.header("acme", "s1"));
        driver.dlq().readRecordsToList();

        // Alice comes back: a session and a MEMORY.md written after the erasure.
        LlmRequest again = talkUntilCompacted("s9", "alice", T0.plusSeconds(120));
        DiaryEdit fresh = new DiaryEdit(
                "e-3", "acme", "alice", "MEMORY", 0, "# Notes\n- coffee\n", "test", T0.plusSeconds(61), List.of());
        signed(driver.diaryEdits(), fresh.key().key(), Json.bytes(fresh), null);

        // The captured request, produced again to both topics, signature intact: refused, nothing erased.
        signed(driver.messages(), erasure.key(), erasure.toJson(), erasure.erasureId());
        signed(driver.diaryEdits(), erasure.key(), erasure.toJson(), erasure.erasureId());
        assertNotNull(driver.header("acme", "s9"), "alice's new session stays");
        assertEquals(again.requestId(), driver.header("acme", "s9").pending().requestId());
        assertNotNull(
                driver.<String, DiaryDocument>store(DiaryEditProcessor.STORE).get("acme/alice/MEMORY"),
                "her new MEMORY.md stays");
        var dead = driver.dlq().readRecordsToList();
        assertEquals(2, dead.size());
        dead.forEach(d -> assertEquals("EARLIER_INCARNATION", reason(d)));
        // An erasure requested earlier than the one applied is no less a replay.
        Erasure older = Erasure.ofUser("er-0", "acme", "alice", T0.plusSeconds(30), 0);
        signed(driver.messages(), older.key(), older.toJson(), older.erasureId());
        assertNotNull(driver.header("acme", "s9"));
        // A new erasure of alice applies.
        Erasure next = Erasure.ofUser("er-2", "acme", "alice", T0.plusSeconds(900), 0);
        signed(driver.messages(), next.key(), next.toJson(), next.erasureId());
        assertNull(driver.header("acme", "s9"));
    }

    @Test
    void anUnsignedErasureIsDeadLetteredAndDeletesNothing() {
        Erasure erasure = Erasure.ofTenant("er-2", "acme", T0.plusSeconds(60), 0);
        Headers headers = new RecordHeaders().add(new RecordHeader(Erasure.HEADER, new byte[0]));
        byte[] key = erasure.key().getBytes(StandardCharsets.UTF_8);
        driver.messages().pipeInput(new TestRecord<>(key, erasure.toJson(), headers, T0));
        driver.diaryEdits().pipeInput(new TestRecord<>(key, erasure.toJson(), headers, T0));

        assertNotNull(driver.header("acme", "s1"));
        assertNotNull(
                driver.<String, DiaryDocument>store(DiaryEditProcessor.STORE).get("acme/alice/MEMORY"));
        var dlq = driver.dlq().readRecordsToList();
        assertEquals(2, dlq.size());
        for (TestRecord<byte[], byte[]> record : dlq) {
            assertEquals("UNAUTHENTICATED", DeadLetterHeaders.read(record.headers(), DeadLetterHeaders.REASON));
        }
    }

    private void send(List<Envelope> envelopes) {
        for (Envelope envelope : envelopes) {
            driver.messages()
                    .pipeInput(new TestRecord<>(envelope.key().getBytes(StandardCharsets.UTF_8), envelope.value(), T0));
        }
    }

    private void signed(TestInputTopic<byte[], byte[]> topic, String key, byte[] value, String erasureId) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        RecordHeaders headers = new RecordHeaders();
        if (erasureId != null) {
            headers.add(new RecordHeader(Erasure.HEADER, erasureId.getBytes(StandardCharsets.UTF_8)));
        }
        headers.add(EditSignature.header(settings.requestSecret(), k, value));
        topic.pipeInput(new TestRecord<>(k, value, headers, T0));
    }

    /** Every key's last value on an output topic so far (null: a tombstone); reading consumes, so it is kept. */
    private Map<String, byte[]> latest(String topic) {
        Map<String, byte[]> latest = seen.computeIfAbsent(topic, t -> new HashMap<>());
        for (KeyValue<String, byte[]> record : driver.driver()
                .createOutputTopic(topic, new StringDeserializer(), new ByteArrayDeserializer())
                .readKeyValuesToList()) {
            latest.put(record.key, record.value);
        }
        return new HashMap<>(latest);
    }
}
