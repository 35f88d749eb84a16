package io.reme.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.EditSignature;
import io.reme.dlq.DeadLetterHeaders;
import io.reme.json.Json;
import io.reme.json.JsonSerde;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.search.SourceSpan;
import io.reme.session.SessionSettings;
import io.reme.tokens.TokenCounter;
import io.reme.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The diary documents' single writer: versioned edits in, documents out. */
class DiaryEditTopologyTest {
    private static final Topics TOPICS = SessionDriver.TOPICS;
    private static final Instant T0 = Instant.parse("2026-11-28T15:00:00Z");

    @TempDir
    Path stateDir;

    private SessionDriver driver;
    private final SessionSettings settings = SessionSettings.defaults();

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "diary-test");
        // A directory of its own: the default one is shared with every other run on the machine.
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = SessionDriver.of(settings, TokenCounter.forEncoding("o200k_base", 0), props, null);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private void send(DiaryEdit edit) throws Exception {
        pipe(edit.key().key().getBytes(StandardCharsets.UTF_8), Json.MAPPER.writeValueAsBytes(edit));
    }

    /** As the workers and the watch send it: signed with the deployment's secret. */
    private void pipe(byte[] key, byte[] value) {
        Headers headers = new RecordHeaders().add(EditSignature.header(settings.requestSecret(), key, value));
        driver.diaryEdits().pipeInput(new TestRecord<>(key, value, headers, T0));
    }

    private static DiaryEdit edit(String id, long base, String content) {
        return new DiaryEdit(id, "acme", "alice", "2026-11-28", base, content, "req-" + id, T0, List.of());
    }

    @Test
    void appliesEditsBasedOnTheCurrentVersionOnly() throws Exception {
        send(edit("e1", 0, "# 2026-11-28\n- a\n"));
        send(edit("e2", 1, "# 2026-11-28\n- a\n- b\n"));
        send(edit("e3", 1, "# 2026-11-28\n- a\n- c\n"));
        List<DiaryDocument> out = driver.diary().readValuesToList();
        assertEquals(2, out.size(), "the stale edit e3 is dropped, not applied over e2");
        assertEquals(1, out.get(0).version());
        assertEquals(2, out.get(1).version());
        assertEquals("e2", out.get(1).editId());
        assertEquals("# 2026-11-28\n- a\n- b\n", out.get(1).content());

        // The loser re-reads version 2 and retries: both changes survive.
        send(edit("e4", 2, "# 2026-11-28\n- a\n- b\n- c\n"));
        DiaryDocument last = driver.diary().readValue();
        assertEquals(3, last.version());
        assertTrue(last.content().contains("- b") && last.content().contains("- c"));
    }

    @Test
    void changedChunksGoOutForIndexingAndRemovedOnesAreDeleted() throws Exception {
        TestOutputTopic<String, MemoryRecord> pending = pendingMemories();
        String longDay = longDay();
        send(edit("e1", 0, longDay));
        List<org.apache.kafka.streams.KeyValue<String, MemoryRecord>> first = pending.readKeyValuesToList();
        assertTrue(first.size() >= 3, "a long document is several chunks: " + first.size());
        MemoryRecord chunk0 = first.get(0).value;
        assertEquals("acme/diary:alice:2026-11-28:0", first.get(0).key);
        assertEquals(MemoryType.DIARY_CHUNK, chunk0.type());
        assertEquals("acme", chunk0.tenant());
        assertEquals("alice", chunk0.user());
        assertEquals("memory/2026-11-28.md", chunk0.metadata().get("path"));
        assertEquals("1", chunk0.metadata().get("startLine"));
        assertTrue(chunk0.text().startsWith("# 2026-11-28"));
        assertEquals(null, chunk0.vector(), "vectors are added by the embedder");

        // Append to the end: only the last chunk(s) change.
        String version2 = longDay + "- note 120: appended later\n";
        send(edit("e2", 1, version2));
        List<org.apache.kafka.streams.KeyValue<String, MemoryRecord>> second = pending.readKeyValuesToList();
        assertTrue(second.size() < first.size(), "unchanged chunks are not sent again: " + second.size());
        assertTrue(second.stream().noneMatch(kv -> kv.key.endsWith(":0")));

        // Shrink to one chunk: the others are deleted with tombstones.
        send(edit("e3", 2, "# 2026-11-28\n- only this\n"));
        List<org.apache.kafka.streams.KeyValue<String, MemoryRecord>> third = pending.readKeyValuesToList();
        assertEquals("acme/diary:alice:2026-11-28:0", third.get(0).key);
        List<String> deleted =
                third.stream().filter(kv -> kv.value == null).map(kv -> kv.key).toList();
        int chunksOfVersion2 =
                io.reme.diary.DiaryChunker.defaults().chunk(version2).size();
        assertEquals(chunksOfVersion2 - 1, deleted.size(), "every chunk beyond the first is deleted");
        assertEquals("acme/diary:alice:2026-11-28:" + (chunksOfVersion2 - 1), deleted.get(deleted.size() - 1));
    }

    /**
     * A diary names the spans of dialog its edits were written from, and each chunk the document's spans as of the
     * edit that last changed its text; a person's edit changes the text but not where the rest came from.
     */
    @Test
    void theDocumentAndItsChunksNameTheDialogTheyWereWrittenFrom() throws Exception {
        TestOutputTopic<String, MemoryRecord> pending = pendingMemories();
        SourceSpan morning = new SourceSpan("s1", "m1", "m40", 40, T0.minusSeconds(7200), T0.minusSeconds(3600));
        SourceSpan afternoon = new SourceSpan("s2", "m3", "m9", 7, T0.minusSeconds(600), T0.minusSeconds(60));
        String longDay = longDay();
        send(withSources(edit("e1", 0, longDay), morning));
        assertEquals(List.of(morning), driver.diary().readValue().sources());
        List<MemoryRecord> first = pending.readValuesToList();
        assertTrue(first.size() >= 3, "several chunks: " + first.size());
        assertTrue(first.stream().allMatch(c -> c.sources().equals(List.of(morning))), first.toString());

        send(withSources(edit("e2", 1, longDay + "- note 120: the afternoon's step\n"), afternoon, morning));
        assertEquals(List.of(morning, afternoon), driver.diary().readValue().sources(), "each span once, in order");
        List<MemoryRecord> second = pending.readValuesToList();
        assertTrue(second.size() < first.size(), "the unchanged chunks keep what they were written from");
        assertEquals(List.of(morning, afternoon), second.get(second.size() - 1).sources());

        send(edit("e3", 2, longDay + "- note 120: corrected by hand\n"));
        assertEquals(List.of(morning, afternoon), driver.diary().readValue().sources(), "a person's edit names none");
    }

    /** A day of 120 notes: several chunks. */
    private static String longDay() {
        StringBuilder day = new StringBuilder("# 2026-11-28\n");
        for (int i = 0; i < 120; i++) {
            day.append("- note ")
                    .append(i)
                    .append(": the orders-service migration step ")
                    .append(i)
                    .append('\n');
        }
        return day.toString();
    }

    private TestOutputTopic<String, MemoryRecord> pendingMemories() {
        return driver.driver()
                .createOutputTopic(
                        TOPICS.memoriesPending(),
                        new StringDeserializer(),
                        JsonSerde.of(MemoryRecord.class).deserializer());
    }

    private static DiaryEdit withSources(DiaryEdit edit, SourceSpan... sources) {
        return new DiaryEdit(
                edit.editId(),
                edit.tenant(),
                edit.user(),
                edit.name(),
                edit.baseVersion(),
                edit.content(),
                edit.author(),
                edit.at(),
                List.of(sources));
    }

    @Test
    void aReplayedEditChangesNothingAndBadEditsAreDeadLettered() throws Exception {
        send(edit("e1", 0, "first"));
        send(edit("e1", 0, "first"));
        assertEquals(1, driver.diary().readValuesToList().size());
        pipe("acme/alice/2026-11-28".getBytes(StandardCharsets.UTF_8), "{oops".getBytes(StandardCharsets.UTF_8));
        DiaryEdit other = new DiaryEdit("e9", "acme", "bob", "MEMORY", 0, "x", "r", T0, List.of());
        pipe("acme/alice/MEMORY".getBytes(StandardCharsets.UTF_8), Json.MAPPER.writeValueAsBytes(other));
        List<TestRecord<byte[], byte[]>> dead = driver.dlq().readRecordsToList();
        assertEquals(2, dead.size());
        assertEquals("INVALID_CONTENT", DeadLetterHeaders.read(dead.get(1).headers(), DeadLetterHeaders.REASON));
        assertTrue(driver.diary().isEmpty(), "an edit whose key names another user is never applied");
    }
}
