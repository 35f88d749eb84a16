package io.reme.diary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DiaryChunkerTest {
    @Test
    void aShortDocumentIsOneChunkWithItsLines() {
        List<DiaryChunker.Chunk> chunks = DiaryChunker.defaults().chunk("# 2026-11-28\n\n- a\n- b\n\n");
        assertEquals(1, chunks.size());
        assertEquals(new DiaryChunker.Chunk(0, "# 2026-11-28\n\n- a\n- b", 1, 4), chunks.get(0));
        assertEquals(List.of(), DiaryChunker.defaults().chunk("  \n"));
    }

    @Test
    void longDocumentsOverlapAndCoverEveryLine() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            StringBuilder doc = new StringBuilder();
            int lines = 1 + random.nextInt(300);
            for (int i = 0; i < lines; i++) {
                if (random.nextInt(15) == 0) {
                    doc.append("## Section ").append(i).append('\n');
                } else {
                    doc.append("- line ")
                            .append(i)
                            .append(' ')
                            .append("x".repeat(random.nextInt(200)))
                            .append('\n');
                }
            }
            String text = doc.toString();
            String[] all = text.split("\n", -1);
            List<DiaryChunker.Chunk> chunks = DiaryChunker.defaults().chunk(text);
            int covered = 0;
            for (DiaryChunker.Chunk chunk : chunks) {
                String where = "seed " + seed + " round " + round + " chunk " + chunk.index();
                assertTrue(chunk.startLine() <= covered + 1, "no gap: " + where);
                assertTrue(chunk.endLine() > covered, "progress: " + where);
                assertTrue(
                        chunk.text().length() <= DiaryChunker.DEFAULT_MAX_CHARS || chunk.startLine() == chunk.endLine(),
                        "size: " + where);
                assertEquals(
                        String.join("\n", Arrays.copyOfRange(all, chunk.startLine() - 1, chunk.endLine())),
                        chunk.text(),
                        "text equals its line range: " + where);
                covered = chunk.endLine();
            }
            assertEquals(lines, covered, "every line is covered, seed " + seed);
        }
    }

    @Test
    void chunksOverlapByAboutTheOverlapAndStartAtHeadingsWhenTheyCan() {
        StringBuilder doc = new StringBuilder("# Day\n");
        for (int i = 0; i < 60; i++) {
            doc.append("- fact number ").append(i).append(" about the orders-service migration\n");
        }
        List<DiaryChunker.Chunk> chunks = DiaryChunker.defaults().chunk(doc.toString());
        assertTrue(chunks.size() >= 2);
        DiaryChunker.Chunk first = chunks.get(0);
        DiaryChunker.Chunk second = chunks.get(1);
        assertTrue(second.startLine() <= first.endLine(), "overlap");
        int overlapLines = first.endLine() - second.startLine() + 1;
        assertTrue(overlapLines * 50 >= 200 && overlapLines * 50 <= 400, "about 320 characters: " + overlapLines);

        String sections = "## A\n" + "- a\n".repeat(500) + "## B\n" + "- b\n".repeat(500);
        List<DiaryChunker.Chunk> split = DiaryChunker.defaults().chunk(sections);
        assertTrue(split.stream().anyMatch(c -> c.text().startsWith("## B")), "a chunk starts at the heading");
    }

    @Test
    void theSameDocumentAlwaysGivesTheSameChunks() {
        String doc = "# D\n" + "- item with some words\n".repeat(200);
        assertEquals(DiaryChunker.defaults().chunk(doc), DiaryChunker.defaults().chunk(doc));
    }
}
