package io.reme.workspace;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.diary.DiaryDocument;
import io.reme.diary.DiaryEdit;
import io.reme.diary.DocumentKey;
import io.reme.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sink's files ({@link DocumentFiles}) and the watch that publishes hand edits, on one directory. */
class DiaryFileWatcherTest {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final DocumentKey MEMORY = DocumentKey.longTerm("acme", "alice");

    @TempDir
    Path root;

    @TempDir
    Path outside;

    private Workspace workspace;
    private DocumentFiles files;
    private MockProducer<String, byte[]> producer;
    private DiaryFileWatcher watcher;

    @BeforeEach
    void setUp() {
        workspace = new Workspace(root);
        files = new DocumentFiles(workspace);
        producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        watcher = new DiaryFileWatcher(
                workspace,
                producer,
                "reme.diary.edits",
                Clock.fixed(NOW, ZoneOffset.UTC),
                Executors.newSingleThreadScheduledExecutor());
    }

    @AfterEach
    void tearDown() {
        watcher.close();
    }

    private static DiaryDocument version(long version, String editId, String content) {
        return new DiaryDocument("acme", "alice", "MEMORY", content, version, editId, "model", NOW, List.of());
    }

    private Path file() {
        return workspace.documentFile(MEMORY);
    }

    private List<DiaryEdit> pollTwice() {
        watcher.poll();
        return watcher.poll();
    }

    @Test
    void theSinksOwnWritesAreNotEdits() throws IOException {
        assertEquals(DocumentFiles.Outcome.WRITTEN, files.apply(version(1, "e1", "# Memory\n- one\n")));
        assertEquals(List.of(), pollTwice());
        assertEquals(DocumentFiles.Outcome.WRITTEN, files.apply(version(2, "e2", "# Memory\n- one\n- two\n")));
        assertEquals(List.of(), pollTwice());
        assertEquals("# Memory\n- one\n- two\n", Files.readString(file()));
        assertTrue(producer.history().isEmpty());
    }

    @Test
    void redeliveredVersionsChangeNothing() throws IOException {
        files.apply(version(2, "e2", "two"));
        assertEquals(DocumentFiles.Outcome.ALREADY_APPLIED, files.apply(version(1, "e1", "one")));
        assertEquals(DocumentFiles.Outcome.ALREADY_APPLIED, files.apply(version(2, "e2", "two")));
        assertEquals("two", Files.readString(file()));
    }

    @Test
    void aHandEditIsPublishedOnceBasedOnTheVersionInTheFile() throws IOException {
        files.apply(version(3, "e3", "# Memory\n- one\n"));
        Files.writeString(file(), "# Memory\n- one\n- prefers tea\n");
        assertEquals(List.of(), watcher.poll(), "an edit is published once it has stayed the same for two polls");
        List<DiaryEdit> edits = watcher.poll();
        assertEquals(1, edits.size());
        DiaryEdit edit = edits.get(0);
        assertEquals(3, edit.baseVersion());
        assertEquals("# Memory\n- one\n- prefers tea\n", edit.content());
        assertEquals(DiaryFileWatcher.AUTHOR, edit.author());
        assertEquals(List.of(), watcher.poll(), "the same edit is not sent again");
        assertEquals(1, producer.history().size());
        assertEquals("acme/alice/MEMORY", producer.history().get(0).key());
        assertEquals(edit, Json.MAPPER.readValue(producer.history().get(0).value(), DiaryEdit.class));

        // The single writer applies it: the sink writes the same bytes, and the watch goes quiet.
        byte[] content = Files.readAllBytes(file());
        assertEquals(
                DocumentFiles.Outcome.WRITTEN,
                files.apply(new DiaryDocument(
                        "acme", "alice", "MEMORY", edit.content(), 4, edit.editId(), edit.author(), NOW, List.of())));
        assertEquals(new String(content, StandardCharsets.UTF_8), Files.readString(file()));
        assertEquals(List.of(), pollTwice());
    }

    @Test
    void aModelVersionNeverOverwritesAnUnpublishedHandEditAndBothAreKept() throws IOException {
        files.apply(version(1, "e1", "# Memory\n- likes tea\n"));
        String human = "# Memory\n- likes green tea\n";
        Files.writeString(file(), human);
        // The model's version 2 arrives before the watch has published the person's edit.
        assertEquals(DocumentFiles.Outcome.HELD, files.apply(version(2, "e2", "# Memory\n- likes tea\n- in Kyoto\n")));
        assertEquals(human, Files.readString(file()), "the person's file is untouched");

        List<DiaryEdit> edits = pollTwice();
        assertEquals(1, edits.size());
        DiaryEdit merged = edits.get(0);
        assertEquals(2, merged.baseVersion(), "based on the held version, so the single writer accepts it");
        assertEquals(human + "\n" + String.format(KeepBothMerge.NOTE, 2) + "\n- in Kyoto\n", merged.content());

        // Another model version before the merge is applied: held again, the file is still the person's.
        assertEquals(
                DocumentFiles.Outcome.HELD,
                files.apply(version(3, "e3", "# Memory\n- likes tea\n- in Kyoto\n- cat\n")));
        assertEquals(human, Files.readString(file()));
        List<DiaryEdit> again = watcher.poll();
        assertEquals(1, again.size());
        assertEquals(3, again.get(0).baseVersion());
        assertTrue(again.get(0).content().contains("- cat"));
        assertTrue(again.get(0).content().startsWith(human));

        // The merge is applied as version 4 and written over the person's file.
        assertEquals(
                DocumentFiles.Outcome.WRITTEN,
                files.apply(new DiaryDocument(
                        "acme",
                        "alice",
                        "MEMORY",
                        again.get(0).content(),
                        4,
                        again.get(0).editId(),
                        "human",
                        NOW,
                        List.of())));
        assertEquals(again.get(0).content(), Files.readString(file()));
        assertEquals(List.of(), pollTwice());
    }

    @Test
    void savingAgainBeforeTheFirstSaveIsWrittenBackIsNoConflict() throws IOException {
        files.apply(version(1, "e1", "# Memory\n- one\n"));
        Files.writeString(file(), "# Memory\n- one\n- draft line\n");
        DiaryEdit first = pollTwice().get(0);
        // The first save is applied as version 2, but the person saves again (dropping the draft line)
        // before the sink writes it: version 2 is held, and the second save replaces it unmerged.
        String second = "# Memory\n- one\n- final line\n";
        Files.writeString(file(), second);
        assertEquals(
                DocumentFiles.Outcome.HELD,
                files.apply(new DiaryDocument(
                        "acme",
                        "alice",
                        "MEMORY",
                        first.content(),
                        2,
                        first.editId(),
                        DiaryFileWatcher.AUTHOR,
                        NOW,
                        List.of())));
        List<DiaryEdit> edits = pollTwice();
        assertEquals(1, edits.size());
        assertEquals(2, edits.get(0).baseVersion());
        assertEquals(second, edits.get(0).content(), "the draft line the person removed does not come back");
    }

    @Test
    void aFailedPublishIsRetriedAndATooLargeOneIsNot() throws Exception {
        MockProducer<String, byte[]> manual =
                new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
        DiaryFileWatcher slow = new DiaryFileWatcher(
                workspace,
                manual,
                "reme.diary.edits",
                Clock.fixed(NOW, ZoneOffset.UTC),
                Executors.newSingleThreadScheduledExecutor());
        try {
            files.apply(version(1, "e1", "# Memory\n"));
            Files.writeString(file(), "# Memory\n- edited\n");
            slow.poll();
            CompletableFuture<List<DiaryEdit>> failing = CompletableFuture.supplyAsync(slow::poll);
            awaitSends(manual, 1);
            manual.errorNext(new TimeoutException("broker away"));
            ExecutionException failed = assertThrows(ExecutionException.class, failing::get);
            assertTrue(failed.getCause() instanceof IllegalStateException, failed.toString());

            CompletableFuture<List<DiaryEdit>> retried = CompletableFuture.supplyAsync(slow::poll);
            awaitSends(manual, 2);
            manual.completeNext();
            assertEquals(1, retried.get().size(), "the same edit is sent again after a failure");

            Files.writeString(file(), "# Memory\n- edited\n" + "x".repeat(100) + "\n");
            slow.poll();
            CompletableFuture<List<DiaryEdit>> tooLarge = CompletableFuture.supplyAsync(slow::poll);
            awaitSends(manual, 3);
            manual.errorNext(new RecordTooLargeException("too large"));
            assertEquals(List.of(), tooLarge.get());
            assertEquals(List.of(), slow.poll());
            assertEquals(3, manual.history().size(), "a refused size is not retried forever");
        } finally {
            slow.close();
        }
    }

    private static void awaitSends(MockProducer<String, byte[]> producer, int sends) {
        await("the watch sends")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> producer.history().size() >= sends);
    }

    @Test
    void filesRenamedAwayWhileThePollWalksDoNotFailIt() throws Exception {
        Path day = workspace.documentFile(DocumentKey.parse("acme/bob/2026-11-29"));
        Files.createDirectories(day.getParent());
        Files.writeString(day, "# 2026-11-29\n- met Carol\n");
        // A sink writing tool outputs: temporary files that appear and are renamed away all the time.
        Path outputs = Files.createDirectories(root.resolve("acme").resolve("tool_result"));
        AtomicBoolean stop = new AtomicBoolean();
        Thread sink = Thread.ofPlatform().start(() -> {
            for (int i = 0; !stop.get(); i++) {
                try {
                    Path temporary = Files.writeString(outputs.resolve(".out-" + i + ".tmp"), "output " + i);
                    Files.move(
                            temporary,
                            outputs.resolve("out-" + (i % 50) + ".txt"),
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        List<DiaryEdit> edits = new ArrayList<>();
        try {
            for (int poll = 0; poll < 300; poll++) {
                edits.addAll(watcher.poll());
            }
        } finally {
            stop.set(true);
            sink.join();
        }
        assertEquals(1, edits.size(), "the hand-written day is published once, however busy the sink");
        assertEquals("acme/bob/2026-11-29", edits.get(0).key().key());
    }

    @Test
    void aNewFileByHandIsPublishedAsTheFirstVersion() throws IOException {
        Path day = workspace.documentFile(DocumentKey.parse("acme/bob/2026-11-29"));
        Files.createDirectories(day.getParent());
        Files.writeString(day, "# 2026-11-29\n- met Carol\n");
        List<DiaryEdit> edits = pollTwice();
        assertEquals(1, edits.size());
        assertEquals(0, edits.get(0).baseVersion());
        assertEquals("acme/bob/2026-11-29", edits.get(0).key().key());
    }

    @Test
    void aBinaryFileIsRefusedAndNotReadAgainUntilItChanges() throws IOException {
        files.apply(version(1, "e1", "# Memory\n- one\n"));
        byte[] binary = {'#', ' ', 0, 1, 2, (byte) 0xff, (byte) 0xfe, '\n', 0, 0};
        Files.write(file(), binary);
        assertEquals(List.of(), watcher.poll());
        assertEquals(List.of(), watcher.poll());
        assertEquals(List.of(), watcher.poll());
        assertTrue(producer.history().isEmpty(), "no edit is published from a binary file");
        assertEquals(1, watcher.reads(), "a refused file is read once, not on every poll");

        // A person saves text over it: that is an edit again.
        Files.writeString(file(), "# Memory\n- one\n- two\n");
        List<DiaryEdit> edits = pollTwice();
        assertEquals(1, edits.size());
        assertEquals("# Memory\n- one\n- two\n", edits.get(0).content());
    }

    @Test
    void onlyUtf8TextWithoutControlCharactersIsAnEdit() {
        for (String text : List.of("# Memory\n\t- tea\r\n", "中文 ✓ 😀", "\uFEFF# with a BOM\n", "")) {
            assertEquals(Optional.empty(), DiaryFileWatcher.notText(text.getBytes(StandardCharsets.UTF_8)), text);
        }
        assertEquals(Optional.of("not valid UTF-8"), DiaryFileWatcher.notText(new byte[] {'a', (byte) 0xc3, '(', 'b'}));
        assertEquals(
                Optional.of("not valid UTF-8"),
                DiaryFileWatcher.notText(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}),
                "an encoded surrogate is not UTF-8");
        for (String text : List.of("a\u0000b", "bell\u0007", "esc\u001b[31m", "del\u007f", "c1\u0085", "ff\f")) {
            assertTrue(
                    DiaryFileWatcher.notText(text.getBytes(StandardCharsets.UTF_8))
                            .orElse("")
                            .startsWith("control character"),
                    text);
        }
    }

    @Test
    void aFileOverTheLimitIsNotRead() throws IOException {
        files.apply(version(1, "e1", "# Memory\n"));
        Files.writeString(file(), "# Memory\n" + "x".repeat((int) DiaryFileWatcher.MAX_EDIT_BYTES));
        assertEquals(List.of(), pollTwice());
        assertEquals(List.of(), watcher.poll());
        assertEquals(0, watcher.reads());
        assertTrue(producer.history().isEmpty());
    }

    @Test
    void aLinkedMemoryFileOrUserFolderIsNotPublished() throws IOException {
        Path secret = Files.writeString(outside.resolve("secret.md"), "# not a memory\n- password 1234\n");
        Files.createDirectories(file().getParent());
        Files.createSymbolicLink(file(), secret);
        Path diary = workspace.documentFile(DocumentKey.parse("acme/alice/2026-11-29"));
        Files.createDirectories(diary.getParent());
        Files.createSymbolicLink(diary, secret);
        Files.writeString(outside.resolve("MEMORY.md"), "# outside\n");
        Files.createSymbolicLink(workspace.userDir("acme", "bob"), outside);
        assertEquals(List.of(), pollTwice());
        assertEquals(List.of(), watcher.poll());
        assertTrue(producer.history().isEmpty());
        assertEquals(0, watcher.reads(), "a linked file is not even read");
    }
}
