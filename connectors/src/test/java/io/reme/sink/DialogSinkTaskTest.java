package io.reme.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.erasure.Erasure;
import io.reme.erasure.ErasureMarker;
import io.reme.json.Json;
import io.reme.llm.RequestSecret;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import io.reme.session.ArchivedMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DialogSinkTaskTest {
    @TempDir
    Path root;

    @TempDir
    Path outside;

    private static final String SECRET_TEXT = "dialog-sink-test-secret-0123456789abcdef";
    private static final RequestSecret SECRET = RequestSecret.of(SECRET_TEXT);

    private DialogSinkTask task;

    @BeforeEach
    void start() {
        task = new DialogSinkTask();
        task.start(Map.of("workspace.dir", root.toString(), "request.secret", SECRET_TEXT));
    }

    /** When the erasures of these tests were asked for: the files they find were written before it. */
    private static final Instant ERASED_AT = Instant.parse("2026-12-01T12:00:00Z");

    /** The marker of {@code erasure} sent by session partition 0, which read the request at offset 100. */
    private static SinkRecord marker(long offset, RequestSecret secret, Erasure erasure) {
        return marker(offset, erasure.key(), secret, ErasureMarker.of(erasure, 0, 100));
    }

    /** {@code marker}'s signed headers on a record keyed {@code key}. */
    private static SinkRecord marker(long offset, String key, RequestSecret secret, ErasureMarker marker) {
        SinkRecord record = SinkRecords.of("reme.dialog", 0, offset, key, null, 0L);
        for (Header header : marker.headers(secret)) {
            record.headers().addBytes(header.key(), header.value());
        }
        return record;
    }

    private static SinkRecord marker(long offset, ErasureMarker marker) {
        return marker(offset, marker.key(), SECRET, marker);
    }

    private static Erasure ofAlice(String erasureId) {
        return Erasure.ofUser(erasureId, "acme", "alice", ERASED_AT, 0);
    }

    /** A file written {@code hours} after the erasure was asked for (before it, if negative). */
    private static Path written(Path file, String text, long hours) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.from(ERASED_AT.plus(Duration.ofHours(hours))));
        return file;
    }

    /** A new task, as after a crash: it knows nothing but what is in the files. */
    private void restart() {
        task.stop();
        start();
    }

    @AfterEach
    void stop() {
        task.stop();
    }

    /** A message archived from session partition 0, of a session begun at offset 0 there. */
    static ArchivedMessage archived(String session, String user, String date, long seq, String text) {
        return archived(session, user, date, seq, text, new ArchivedMessage.Origin(0, 1));
    }

    static ArchivedMessage archived(
            String session, String user, String date, long seq, String text, ArchivedMessage.Origin origin) {
        Message message = new Message(
                "acme",
                session,
                user,
                session + "-" + seq,
                Role.USER,
                null,
                Instant.parse(date + "T10:00:00Z"),
                List.of(new Block.Text(text)));
        return new ArchivedMessage("acme", session, user, date, seq, "req-1", message, origin);
    }

    static byte[] json(Object value) throws IOException {
        return Json.MAPPER.writeValueAsBytes(value);
    }

    private static SinkRecord record(int partition, long offset, ArchivedMessage message) throws IOException {
        return SinkRecords.of(
                "reme.dialog", partition, offset, message.tenant() + "/" + message.session(), json(message), 0L);
    }

    @Test
    void anErasureMarkerDeletesTheUsersFolderAfterWhatCameBeforeItInTheBatch() throws IOException {
        Path aliceDiary = written(root.resolve("acme/alice/MEMORY.md"), "# alice", -1);
        SinkRecord marker = marker(2, SECRET, ofAlice("er-1"));
        ArchivedMessage before = archived("s1", "alice", "2026-11-30", 0, "said before");
        ArchivedMessage bob = archived("s2", "bob", "2026-11-30", 0, "bob's");
        ArchivedMessage after =
                archived("s3", "alice", "2026-12-01", 0, "said after", new ArchivedMessage.Origin(0, 102));

        task.put(List.of(record(0, 0, before), record(0, 1, bob), marker, record(0, 3, after)));

        assertFalse(Files.exists(aliceDiary), "the user's folder went, diaries included");
        assertFalse(Files.exists(root.resolve("acme/alice/dialog/2026-11-30.jsonl")), "what came before went");
        assertTrue(Files.exists(root.resolve("acme/alice/dialog/2026-12-01.jsonl")), "what came after is new");
        assertTrue(Files.exists(root.resolve("acme/bob/dialog/2026-11-30.jsonl")), "another user's stays");

        Files.setLastModifiedTime(root.resolve("acme/alice/dialog/2026-12-01.jsonl"), FileTime.from(ERASED_AT));
        written(root.resolve("acme/tool_result/t1.txt"), "output", -1);
        written(root.resolve("acme/bob/MEMORY.md"), "# bob", -1);
        SinkRecord tenant = marker(4, SECRET, Erasure.ofTenant("er-2", "acme", ERASED_AT.plusSeconds(60), 0));
        task.put(List.of(tenant));
        assertTrue(
                Files.exists(root.resolve("acme/alice/dialog/2026-12-01.jsonl")),
                "a line of a session begun after the erasure request stays, whatever its file's time");
        assertFalse(Files.exists(root.resolve("acme/bob")), "bob's folder went with the tenant");
        assertFalse(Files.exists(root.resolve("acme/tool_result")), "the tenant's tool outputs too");

        task.put(List.of(marker(5, ErasureMarker.of(Erasure.ofTenant("er-3", "acme", ERASED_AT, 0), 0, 200))));
        assertFalse(Files.exists(root.resolve("acme")), "the tenant's folder went once nothing was left in it");
    }

    /**
     * Every session partition sends its own marker to every dialog partition, and one partition can lag far
     * behind the others: a late marker deletes the erased lines of its own partition, and none of a session
     * that another partition began after the erasure under an ID the erased user had.
     */
    @Test
    void aLateMarkerDeletesOnlyWhatItsPartitionArchivedBeforeTheErasure() throws IOException {
        Erasure erasure = ofAlice("er-1");
        ArchivedMessage fromZero = archived("s1", "alice", "2026-11-30", 0, "zero's", new ArchivedMessage.Origin(0, 7));
        ArchivedMessage fromOne = archived("s2", "alice", "2026-11-30", 0, "one's", new ArchivedMessage.Origin(1, 40));
        ArchivedMessage legacy = archived("s4", "alice", "2026-11-30", 0, "before origins", null);
        // Partition 0 read the request at offset 100; alice writes to s1 again after her erasure, from offset 150.
        ArchivedMessage since = new ArchivedMessage(
                "acme",
                "s1",
                "alice",
                "2026-11-30",
                0,
                "req-2",
                archived("s1", "alice", "2026-11-30", 0, "said since").message(),
                new ArchivedMessage.Origin(0, 151));
        task.put(List.of(record(0, 0, fromZero), record(0, 1, fromOne), record(0, 2, legacy)));
        Path file = root.resolve("acme/alice/dialog/2026-11-30.jsonl");
        Files.writeString(file, "a note by hand\n", StandardOpenOption.APPEND);
        Path memory = written(root.resolve("acme/alice/MEMORY.md"), "# since", 1);

        task.put(List.of(marker(3, ErasureMarker.of(erasure, 0, 100)), record(0, 4, since)));
        assertArrayEquals(lines(fromOne, since), Files.readAllBytes(file), "zero's, legacy and hand lines went");

        task.put(List.of(marker(5, ErasureMarker.of(erasure, 1, 50))));
        assertArrayEquals(lines(since), Files.readAllBytes(file), "partition 1's marker took its line only");
        assertTrue(Files.exists(memory), "a document written after the request stays");

        // Both markers again, as a producer with the topic's records could send them: nothing written since goes.
        task.put(List.of(marker(6, ErasureMarker.of(erasure, 0, 100)), marker(7, ErasureMarker.of(erasure, 1, 50))));
        assertArrayEquals(lines(since), Files.readAllBytes(file));
        assertTrue(Files.exists(memory));
        restart();
        task.put(List.of(marker(0, ErasureMarker.of(erasure, 0, 100)), record(0, 1, since)));
        assertArrayEquals(lines(since), Files.readAllBytes(file), "and the line is still not written twice");
    }

    @Test
    void theDialogSinkNeedsTheRequestSecret() {
        DialogSinkTask unconfigured = new DialogSinkTask();
        ConfigException missing =
                assertThrows(ConfigException.class, () -> unconfigured.start(Map.of("workspace.dir", root.toString())));
        assertTrue(missing.getMessage().contains("request.secret"), missing.getMessage());
        ConfigException tooShort = assertThrows(
                ConfigException.class,
                () -> unconfigured.start(Map.of("workspace.dir", root.toString(), "request.secret", "short")));
        assertFalse(tooShort.getMessage().contains("short\""), "the value is not shown: " + tooShort.getMessage());
        assertTrue(
                new DialogSinkConnector().config().configKeys().containsKey("request.secret"),
                "a Connect cluster validates it too");
    }

    @Test
    void linesAreTheArchivedMessagesGroupedByUserAndDate() throws IOException {
        ArchivedMessage a0 = archived("s1", "alice", "2026-11-29", 0, "line one\nwith a newline");
        ArchivedMessage a1 = archived("s1", "alice", "2026-11-30", 1, "next day");
        ArchivedMessage b0 = archived("s2", "bob", "2026-11-30", 0, "bob's");
        ArchivedMessage a2 = archived("s3", "alice", "2026-11-30", 0, "another session, same day");
        task.put(List.of(record(0, 0, a0), record(0, 1, a1), record(1, 0, b0), record(2, 0, a2)));

        assertArrayEquals(lines(a0), Files.readAllBytes(root.resolve("acme/alice/dialog/2026-11-29.jsonl")));
        assertArrayEquals(lines(a1, a2), Files.readAllBytes(root.resolve("acme/alice/dialog/2026-11-30.jsonl")));
        assertArrayEquals(lines(b0), Files.readAllBytes(root.resolve("acme/bob/dialog/2026-11-30.jsonl")));
    }

    @Test
    void redeliveryWritesNothingTwiceEvenAfterARestart() throws IOException {
        ArchivedMessage m0 = archived("s1", "alice", "2026-11-30", 0, "first");
        ArchivedMessage m1 = archived("s1", "alice", "2026-11-30", 1, "second");
        ArchivedMessage m2 = archived("s1", "alice", "2026-11-30", 2, "third");
        task.put(List.of(record(0, 0, m0), record(0, 1, m1)));
        task.put(List.of(record(0, 0, m0), record(0, 1, m1)));
        // A new task (a crash before offsets were committed) gets the same records again, and one more.
        restart();
        task.put(List.of(record(0, 0, m0), record(0, 1, m1), record(0, 2, m2)));
        assertArrayEquals(lines(m0, m1, m2), Files.readAllBytes(root.resolve("acme/alice/dialog/2026-11-30.jsonl")));
    }

    @Test
    void aLineCutByACrashIsRemovedAndTheMessageWrittenAgainInFull() throws IOException {
        ArchivedMessage m0 = archived("s1", "alice", "2026-11-30", 0, "first");
        ArchivedMessage m1 = archived("s1", "alice", "2026-11-30", 1, "second");
        task.put(List.of(record(0, 0, m0)));
        Path file = root.resolve("acme/alice/dialog/2026-11-30.jsonl");
        byte[] cut = Arrays.copyOf(json(m1), 25);
        Files.write(file, cut, StandardOpenOption.APPEND);

        restart();
        task.put(List.of(record(0, 0, m0), record(0, 1, m1)));

        // Every line reads as JSON again, as a strict JSONL reader needs.
        assertArrayEquals(lines(m0, m1), Files.readAllBytes(file));
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            Json.MAPPER.readTree(line);
        }
    }

    @Test
    void aLastLineWithoutItsNewlineThatReadsAsAMessageIsKept() throws IOException {
        ArchivedMessage m0 = archived("s1", "alice", "2026-11-30", 0, "first");
        ArchivedMessage m1 = archived("s1", "alice", "2026-11-30", 1, "second");
        ArchivedMessage m2 = archived("s1", "alice", "2026-11-30", 2, "third");
        Path file = root.resolve("acme/alice/dialog/2026-11-30.jsonl");
        Files.createDirectories(file.getParent());
        ByteArrayOutputStream edited = new ByteArrayOutputStream();
        edited.writeBytes(lines(m0));
        edited.writeBytes(json(m1));
        Files.write(file, edited.toByteArray());

        task.put(List.of(record(0, 0, m0), record(0, 1, m1), record(0, 2, m2)));

        assertArrayEquals(lines(m0, m1, m2), Files.readAllBytes(file));
    }

    @Test
    void aHandWrittenLastLineWithoutItsNewlineIsKept() throws IOException {
        ArchivedMessage m0 = archived("s1", "alice", "2026-11-30", 0, "first");
        ArchivedMessage m1 = archived("s1", "alice", "2026-11-30", 1, "second");
        task.put(List.of(record(0, 0, m0)));
        Path file = root.resolve("acme/alice/dialog/2026-11-30.jsonl");
        Files.write(file, "a note of my own".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);

        restart();
        task.put(List.of(record(0, 0, m0), record(0, 1, m1)));

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(lines(m0));
        expected.writeBytes("a note of my own\n".getBytes(StandardCharsets.UTF_8));
        expected.writeBytes(lines(m1));
        assertArrayEquals(expected.toByteArray(), Files.readAllBytes(file));
    }

    @Test
    void aHandEditedFileIsReadAgainBeforeTheNextAppend() throws IOException {
        ArchivedMessage m0 = archived("s1", "alice", "2026-11-30", 0, "first");
        ArchivedMessage m1 = archived("s1", "alice", "2026-11-30", 1, "second");
        task.put(List.of(record(0, 0, m0)));
        Path file = root.resolve("acme/alice/dialog/2026-11-30.jsonl");
        Files.write(file, "a note of my own\n".getBytes(StandardCharsets.UTF_8));

        task.put(List.of(record(0, 0, m0), record(0, 1, m1)));

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes("a note of my own\n".getBytes(StandardCharsets.UTF_8));
        expected.writeBytes(lines(m0, m1));
        assertArrayEquals(expected.toByteArray(), Files.readAllBytes(file));
    }

    @Test
    void aLinkPlantedInAUsersFolderIsNeverAppendedThrough() throws IOException {
        // The day's file is a link to a file outside the workspace.
        Path victim = Files.writeString(outside.resolve("victim.txt"), "keep me\n");
        Path dialog = Files.createDirectories(root.resolve("acme/alice/dialog"));
        Files.createSymbolicLink(dialog.resolve("2026-11-30.jsonl"), victim);
        ArchivedMessage m0 = archived("s1", "alice", "2026-11-30", 0, "secret");
        DataException refused = assertThrows(DataException.class, () -> task.put(List.of(record(0, 0, m0))));
        assertTrue(refused.getMessage().contains("symbolic link"), refused.getMessage());
        assertEquals("keep me\n", Files.readString(victim));

        // The dialog folder of another user is a link to a folder outside.
        Path bobs = Files.createDirectories(root.resolve("acme/bob"));
        Files.createSymbolicLink(bobs.resolve("dialog"), outside);
        ArchivedMessage b0 = archived("s2", "bob", "2026-11-30", 0, "secret");
        assertThrows(DataException.class, () -> task.put(List.of(record(1, 0, b0))));
        assertEquals(List.of(outside.resolve("victim.txt")), listed(outside));

        // The user's folder itself is a link.
        Files.createSymbolicLink(root.resolve("acme/carol"), outside);
        ArchivedMessage c0 = archived("s3", "carol", "2026-11-30", 0, "secret");
        assertThrows(DataException.class, () -> task.put(List.of(record(2, 0, c0))));
        assertEquals(List.of(outside.resolve("victim.txt")), listed(outside));
    }

    private static List<Path> listed(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> !f.equals(dir)).sorted().toList();
        }
    }

    @Test
    void badRecordsFailTheTaskWhenThereIsNoDeadLetterQueue() throws IOException {
        ArchivedMessage ok = archived("s1", "alice", "2026-11-30", 0, "fine");
        assertThrows(
                DataException.class,
                () -> task.put(List.of(SinkRecords.of("reme.dialog", 0, 0, "acme/other", json(ok), 0L))),
                "key and message disagree");
        assertThrows(
                DataException.class,
                () -> task.put(List.of(SinkRecords.of(
                        "reme.dialog", 0, 0, "acme/s1", "{not json".getBytes(StandardCharsets.UTF_8), 0L))));
        assertThrows(
                DataException.class,
                () -> task.put(List.of(SinkRecords.of("reme.dialog", 0, 0, "../../x", json(ok), 0L))));
        assertFalse(Files.exists(root.resolve("acme")));
    }

    private static byte[] lines(ArchivedMessage... messages) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ArchivedMessage message : messages) {
            out.writeBytes(json(message));
            out.write('\n');
        }
        return out.toByteArray();
    }
}
