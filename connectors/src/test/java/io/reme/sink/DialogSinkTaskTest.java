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

    /** An erasure marker as a session task sends it, signed with {@code secret}. */
    private static SinkRecord marker(long offset, RequestSecret secret, Erasure erasure) {
        return marker(offset, erasure.key(), secret, erasure);
    }

    /** {@code erasure}'s signed headers on a marker keyed {@code key}. */
    private static SinkRecord marker(long offset, String key, RequestSecret secret, Erasure erasure) {
        SinkRecord marker = SinkRecords.of("reme.dialog", 0, offset, key, null, 0L);
        for (Header header : ErasureMarker.headers(secret, erasure)) {
            marker.headers().addBytes(header.key(), header.value());
        }
        return marker;
    }

    private static Erasure ofAlice(String erasureId) {
        return Erasure.ofUser(erasureId, "acme", "alice", Instant.EPOCH, 0);
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

    static ArchivedMessage archived(String session, String user, String date, long seq, String text) {
        Message message = new Message(
                "acme",
                session,
                user,
                session + "-" + seq,
                Role.USER,
                null,
                Instant.parse(date + "T10:00:00Z"),
                List.of(new Block.Text(text)));
        return new ArchivedMessage("acme", session, user, date, seq, "req-1", message);
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
        Path aliceDiary = root.resolve("acme/alice/MEMORY.md");
        Files.createDirectories(aliceDiary.getParent());
        Files.writeString(aliceDiary, "# alice");
        SinkRecord marker = marker(2, SECRET, ofAlice("er-1"));
        ArchivedMessage before = archived("s1", "alice", "2026-11-30", 0, "said before");
        ArchivedMessage bob = archived("s2", "bob", "2026-11-30", 0, "bob's");
        ArchivedMessage after = archived("s3", "alice", "2026-12-01", 0, "said after");

        task.put(List.of(record(0, 0, before), record(0, 1, bob), marker, record(0, 3, after)));

        assertFalse(Files.exists(aliceDiary), "the user's folder went, diaries included");
        assertFalse(Files.exists(root.resolve("acme/alice/dialog/2026-11-30.jsonl")), "what came before went");
        assertTrue(Files.exists(root.resolve("acme/alice/dialog/2026-12-01.jsonl")), "what came after is new");
        assertTrue(Files.exists(root.resolve("acme/bob/dialog/2026-11-30.jsonl")), "another user's stays");

        SinkRecord tenant = marker(4, SECRET, Erasure.ofTenant("er-2", "acme", Instant.EPOCH, 0));
        task.put(List.of(tenant));
        assertFalse(Files.exists(root.resolve("acme")), "the tenant's folder went");
    }

    @Test
    void anErasureMarkerWithoutTheDeploymentsSignatureDeletesNothing() throws IOException {
        Path aliceDiary = root.resolve("acme/alice/MEMORY.md");
        Files.createDirectories(aliceDiary.getParent());
        Files.writeString(aliceDiary, "# alice");
        ArchivedMessage said = archived("s1", "alice", "2026-11-30", 0, "said");
        Path dialog = root.resolve("acme/alice/dialog/2026-11-30.jsonl");

        SinkRecord unsigned = SinkRecords.of("reme.dialog", 0, 1, "acme/alice", null, 0L);
        unsigned.headers().addBytes(Erasure.HEADER, "er-1".getBytes(StandardCharsets.UTF_8));
        // Signed by another deployment's secret.
        SinkRecord foreign = marker(2, RequestSecret.random(), ofAlice("er-2"));
        // A genuine signature for bob, replayed on a marker for alice.
        SinkRecord forAlice = marker(3, "acme/alice", SECRET, Erasure.ofUser("er-3", "acme", "bob", Instant.EPOCH, 0));
        // A genuine signature of alice's erasure er-4, under another erasure id.
        SinkRecord renamed = marker(4, SECRET, ofAlice("er-4"));
        renamed.headers().addBytes(Erasure.HEADER, "er-5".getBytes(StandardCharsets.UTF_8));
        // Alice's signature on a marker for the whole tenant.
        SinkRecord forTenant = marker(5, "acme/" + Erasure.ALL_USERS, SECRET, ofAlice("er-6"));

        // Keys no marker of ours has (written straight to the topic): skipped like any unsigned marker,
        // never a failure that would stop the sink.
        SinkRecord noUser = SinkRecords.of("reme.dialog", 0, 7, "acme", null, 0L);
        noUser.headers().addBytes(Erasure.HEADER, "er-8".getBytes(StandardCharsets.UTF_8));
        SinkRecord noKey = SinkRecords.of("reme.dialog", 0, 8, null, null, 0L);
        noKey.headers().addBytes(Erasure.HEADER, "er-9".getBytes(StandardCharsets.UTF_8));

        task.put(List.of(record(0, 0, said), unsigned, foreign, forAlice, renamed, forTenant, noUser, noKey));

        assertTrue(Files.exists(aliceDiary), "no forged marker deleted the user's folder");
        assertArrayEquals(lines(said), Files.readAllBytes(dialog));

        task.put(List.of(marker(6, SECRET, ofAlice("er-7"))));
        assertFalse(Files.exists(root.resolve("acme/alice")), "the signed marker did");
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
