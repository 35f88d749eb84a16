package io.reme.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process writing the index is killed with SIGKILL at random moments, while it commits after every
 * few records and Lucene merges the small segments that makes: each time the index opens at a commit
 * point holding exactly the writes up to the offset that commit point records (nothing lost before it,
 * nothing after it, no record twice), and replaying from the offset after it gives the full state.
 */
class MemoryIndexCrashTest {
    private static final int IDS = 60;
    private static final int DIMENSION = 16;
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    @TempDir
    Path dir;

    @TempDir
    Path logs;

    @Test
    void aKillDuringCommitsAndMergesLeavesExactlyTheRecordedOffsetsWrites() throws Exception {
        Random random = new Random(27);
        long next = 0;
        for (int round = 0; round < 6; round++) {
            Process writer = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            Writer.class.getName(),
                            dir.toString(),
                            Long.toString(next))
                    .redirectError(ProcessBuilder.Redirect.appendTo(
                            logs.resolve("writer.log").toFile()))
                    .start();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
                assertEquals("committed", out.readLine(), "the writer committed once");
                // A pause, not a wait: the kill lands at a random point of the writer's work.
                Thread.sleep(random.nextInt(500));
            } finally {
                // SIGKILL, also when an assertion failed: the writer never stops by itself.
                writer.destroyForcibly();
                assertTrue(writer.waitFor(30, TimeUnit.SECONDS), "killed");
            }
            try (MemoryIndex index = MemoryIndex.open(dir)) {
                long committed = index.committedOffset().orElseThrow();
                assertTrue(committed > next - 1, "the commit point moved on: " + committed + " after " + (next - 1));
                assertHolds(index, committed);
                // Replayed from the one after the commit point, as Streams restores: the next round goes on from there.
                next = committed + 1;
            }
        }
        try (MemoryIndex index = MemoryIndex.open(dir)) {
            long end = next + 500;
            for (long offset = next; offset <= end; offset++) {
                apply(index, offset);
            }
            index.commit(end);
            index.refresh();
            assertHolds(index, end);
        }
    }

    /** The index holds exactly the state after the writes at offsets 0 to {@code upTo}: each id once. */
    private static void assertHolds(MemoryIndex index, long upTo) throws IOException {
        index.refresh();
        Map<String, Long> expected = new HashMap<>();
        for (long offset = 0; offset <= upTo; offset++) {
            String id = id(offset);
            if (deletes(offset)) {
                expected.remove(id);
            } else {
                expected.put(id, offset);
            }
        }
        for (int i = 0; i < IDS; i++) {
            String id = "m" + i;
            MemoryRecord found = index.get("acme", id);
            Long last = expected.get(id);
            if (last == null) {
                assertEquals(null, found, id + " deleted or never written up to " + upTo);
            } else {
                assertEquals(text(last), found == null ? null : found.text(), id + " up to " + upTo);
            }
        }
        assertEquals(expected.size(), index.count(), "one document per id, up to " + upTo);
    }

    private static String id(long offset) {
        return "m" + (offset % IDS);
    }

    private static boolean deletes(long offset) {
        return offset % 13 == 7;
    }

    private static String text(long offset) {
        return "note written at offset " + offset + " about the harbour";
    }

    private static void apply(MemoryIndex index, long offset) throws IOException {
        if (deletes(offset)) {
            index.delete("acme", id(offset));
            return;
        }
        float[] vector = new float[DIMENSION];
        Random values = new Random(offset);
        for (int i = 0; i < DIMENSION; i++) {
            vector[i] = values.nextFloat() - 0.5f;
        }
        index.upsert(MemoryRecord.of(id(offset), "acme", "alice", "s1", MemoryType.PERSONAL, text(offset), T0)
                .withVector(vector, "test-model"));
    }

    /**
     * The child process: applies the writes from the offset it is given on, committing every few and
     * recording the offset each time, until it is killed.
     */
    public static final class Writer {
        private Writer() {}

        public static void main(String[] args) throws IOException {
            long offset = Long.parseLong(args[1]);
            try (MemoryIndex index = MemoryIndex.open(Path.of(args[0]))) {
                boolean told = false;
                for (; ; offset++) {
                    apply(index, offset);
                    if (offset % 7 == 0) {
                        index.commit(offset);
                        if (!told) {
                            System.out.println("committed");
                            System.out.flush();
                            told = true;
                        }
                    }
                }
            }
        }
    }
}
