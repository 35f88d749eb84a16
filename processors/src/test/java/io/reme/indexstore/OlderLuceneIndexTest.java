package io.reme.indexstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.search.MemoryIndex;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A memory index written by the service's Lucene 9.12 (the fixture: three memories of tenant acme
 * written by {@code MemoryIndex} before the move to Lucene 10, on Java 17) is recognised and deleted
 * with its task's checkpoints, so Streams rebuilds it from the topic; a current index is kept.
 */
class OlderLuceneIndexTest {
    private static final String STORE = MemoryIndexUpdater.STORE;

    /** Unpacks the Lucene 9.12 fixture into {@code folder}. */
    static void unpackLucene9Index(Path folder) throws IOException {
        Files.createDirectories(folder);
        try (InputStream in = OlderLuceneIndexTest.class.getResourceAsStream("/lucene9-memory-index.zip");
                ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
                Files.copy(zip, folder.resolve(entry.getName()));
            }
        }
    }

    private static void writeCurrentIndex(Path folder) throws IOException {
        try (MemoryIndex index = MemoryIndex.open(folder)) {
            index.upsert(MemoryRecord.of(
                    "m1", "acme", "alice", null, MemoryType.PERSONAL, "Alice prefers trains", Instant.EPOCH));
            index.commit();
        }
    }

    @Test
    void anIndexWrittenByLucene9IsRecognised(@TempDir Path dir) throws IOException {
        unpackLucene9Index(dir.resolve("old"));
        writeCurrentIndex(dir.resolve("new"));
        Files.createDirectories(dir.resolve("empty"));

        assertTrue(MemoryIndex.createdByOlderLucene(dir.resolve("old")));
        assertFalse(MemoryIndex.createdByOlderLucene(dir.resolve("new")));
        assertFalse(MemoryIndex.createdByOlderLucene(dir.resolve("empty")));
        assertFalse(MemoryIndex.createdByOlderLucene(dir.resolve("missing")));
        assertTrue(MemoryIndex.outdated(dir.resolve("old")));
        assertFalse(MemoryIndex.outdated(dir.resolve("new")));
        assertFalse(MemoryIndex.outdated(dir.resolve("empty")));
    }

    @Test
    void anIndexOfAnOlderLayoutIsOutdated(@TempDir Path dir) throws IOException {
        // Layout 1 recorded nothing in its commit points: every model's vectors were in one graph.
        try (FSDirectory folder = FSDirectory.open(dir.resolve("layout1"));
                IndexWriter writer = new IndexWriter(folder, new IndexWriterConfig())) {
            Document doc = new Document();
            doc.add(new KnnFloatVectorField("vec", new float[] {1, 0, 0}, VectorSimilarityFunction.DOT_PRODUCT));
            writer.addDocument(doc);
            writer.setLiveCommitData(Map.of("reme.committed-offset", "7").entrySet());
            writer.commit();
        }
        assertFalse(MemoryIndex.createdByOlderLucene(dir.resolve("layout1")));
        assertTrue(MemoryIndex.outdated(dir.resolve("layout1")));

        try (MemoryIndex index = MemoryIndex.open(dir.resolve("current"))) {
            index.upsert(MemoryRecord.of("m1", "acme", "alice", null, MemoryType.PERSONAL, "trains", Instant.EPOCH));
            index.commit(3);
        }
        assertFalse(MemoryIndex.outdated(dir.resolve("current")));
        try (MemoryIndex index = MemoryIndex.open(dir.resolve("current"))) {
            index.commit();
            assertEquals(3, index.committedOffset().getAsLong(), "a commit without an offset keeps the last one");
        }
        assertFalse(MemoryIndex.outdated(dir.resolve("current")), "nor its layout");
    }

    @Test
    void onlyTheOlderIndexAndItsTasksCheckpointsAreDeleted(@TempDir Path app) throws IOException {
        Path oldTask = app.resolve("2_0");
        Path newTask = app.resolve("2_1");
        Path otherTask = app.resolve("0_0");
        unpackLucene9Index(oldTask.resolve(STORE));
        writeCurrentIndex(newTask.resolve(STORE));
        Files.createDirectories(otherTask.resolve("session-state"));
        for (Path task : List.of(oldTask, newTask, otherTask)) {
            Files.writeString(task.resolve(".checkpoint"), "0\n1\nreme.memories 0 3\n");
            Files.writeString(task.resolve(".checkpoint_" + STORE), "0\n1\nreme.memories 0 3\n");
        }

        assertEquals(List.of(oldTask), MemoryIndexStore.deleteOutdatedIndexes(app, STORE));

        assertFalse(Files.exists(oldTask.resolve(STORE)));
        assertFalse(Files.exists(oldTask.resolve(".checkpoint")), "restored from the beginning, not the old offset");
        assertFalse(Files.exists(oldTask.resolve(".checkpoint_" + STORE)));
        for (Path task : List.of(newTask, otherTask)) {
            assertTrue(Files.exists(task.resolve(".checkpoint")));
            assertTrue(Files.exists(task.resolve(".checkpoint_" + STORE)));
        }
        try (MemoryIndex kept = MemoryIndex.open(newTask.resolve(STORE))) {
            assertEquals(1, kept.count());
        }
        // Nothing left to delete on the next start.
        assertEquals(List.of(), MemoryIndexStore.deleteOutdatedIndexes(app, STORE));
        assertEquals(List.of(), MemoryIndexStore.deleteOutdatedIndexes(app.resolve("missing"), STORE));
    }
}
