package io.reme.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.search.FusionMode;
import io.reme.search.MemoryRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The evaluation harness on a tiny hand-made conversation in the LoCoMo format. */
class LocomoEvalTest {

    private static final String DATA = """
            [{"sample_id": "conv-x",
              "conversation": {
                "speaker_a": "Ann", "speaker_b": "Ben",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [
                  {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit yesterday."},
                  {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! What breed is Biscuit?"},
                  {"speaker": "Ann", "dia_id": "D1:3", "text": "A beagle. He loves chasing squirrels."}
                ],
                "session_2_date_time": "10:05 am on 2 June, 2023",
                "session_2": [
                  {"speaker": "Ben", "dia_id": "D2:1", "text": "I started learning the violin last week."},
                  {"speaker": "Ann", "dia_id": "D2:2", "text": "Here is my garden.", "blip_caption": "a photo of tomatoes"}
                ]
              },
              "qa": [
                {"question": "What is the name of Ann's puppy?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4},
                {"question": "Which instrument did Ben start learning?", "answer": "violin", "evidence": ["D2:1; D1:2"], "category": 1},
                {"question": "What does Ann grow in her garden?", "answer": "tomatoes", "evidence": ["D:2:2", "D9:9"], "category": 4},
                {"question": "Unanswerable?", "answer": "n/a", "evidence": [], "category": 5}
              ]}]
            """;

    @Test
    void recallPerCategoryOnATinyConversation(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("tiny.json");
        Files.writeString(data, DATA);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LocomoEval.Options options = new LocomoEval.Options(false, true, 0, FusionMode.WEIGHTED, false);
        LocomoEval.Report report =
                LocomoEval.run(data, null, options, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertEquals(1, report.conversations());
        assertEquals(5, report.turns());
        assertEquals(1, report.skippedQuestions());
        assertEquals(1, report.droppedEvidence()); // D9:9 is not a turn
        assertEquals(3, report.overall().questions());
        // the puppy question finds its turn first; the garden one only through the image caption
        LocomoEval.Recall singleHop = report.categories().stream()
                .filter(r -> r.label().startsWith("4 "))
                .findFirst()
                .orElseThrow();
        assertEquals(2, singleHop.questions());
        assertEquals(1.0, singleHop.at(5), 1e-9);
        // two evidence turns: the violin turn is found, "What breed is Biscuit?" shares no word
        LocomoEval.Recall multiHop = report.categories().get(0);
        assertEquals("1 multi-hop", multiHop.label());
        assertEquals(0.5, multiHop.at(1), 1e-9);
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("overall"), printed);
        assertTrue(printed.contains("@50"), printed);
    }

    @Test
    void turnTextVariants() throws IOException {
        var conv = io.reme.json.Json.MAPPER.readTree(DATA).get(0).get("conversation");
        List<LocomoData.Turn> turns = LocomoData.turns(conv);
        assertEquals(
                List.of("D1:1", "D1:2", "D1:3", "D2:1", "D2:2"),
                turns.stream().map(LocomoData.Turn::diaId).toList());
        assertEquals(Instant.parse("2023-05-08T13:56:00Z"), turns.get(0).sessionTime());

        List<MemoryRecord> plain =
                LocomoData.records("conv-x", "conv-x", turns, new LocomoEval.Options(false, false, 0, null, false));
        assertEquals("Ann: Here is my garden.", plain.get(4).text());
        assertEquals("D2:2", plain.get(4).metadata().get("dia_id"));
        assertEquals("session_2", plain.get(4).session());

        List<MemoryRecord> rich =
                LocomoData.records("conv-x", "conv-x", turns, new LocomoEval.Options(true, true, 1, null, false));
        // The turn is the memory's text; its neighbours are its context, searched as a second granularity.
        assertEquals(
                "[2 June 2023] Ann: Here is my garden. [shares an image: a photo of tomatoes]",
                rich.get(4).text());
        assertEquals(
                "(context) Ben: I started learning the violin last week.",
                rich.get(4).context());
        assertNull(plain.get(4).context(), "no neighbours asked for");
        // neighbours stay within the session
        assertTrue(rich.get(2).context().contains("What breed")
                && !rich.get(2).context().contains("violin"));
    }

    @Test
    void neighboursLongerThanAContextMayBeAreClippedNotRefused() {
        Instant at = Instant.parse("2026-01-05T10:00:00Z");
        List<LocomoData.Turn> turns = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Long technical turns, as on BEAM: each alone is half the bound, and one ends in an emoji.
            turns.add(new LocomoData.Turn(
                    "D1:" + (i + 1),
                    "Dev",
                    "x".repeat(MemoryRecord.MAX_CONTEXT_LENGTH / 2 - 20) + "\uD83D\uDE00",
                    null,
                    1,
                    i,
                    at,
                    "5 January 2026"));
        }
        List<MemoryRecord> records =
                LocomoData.records("beam-1", "beam-1", turns, new LocomoEval.Options(false, false, 2, null, false));
        assertEquals(5, records.size());
        for (MemoryRecord r : records) {
            assertTrue(r.context().length() <= MemoryRecord.MAX_CONTEXT_LENGTH, r.id());
            assertFalse(Character.isHighSurrogate(r.context().charAt(r.context().length() - 1)), r.id());
        }
        assertEquals(MemoryRecord.MAX_CONTEXT_LENGTH, records.get(2).context().length(), "four neighbours, clipped");
    }

    @Test
    void eachTurnIsEmbeddedByTheModelOfItsText() {
        Instant day = Instant.parse("2024-04-01T08:30:00Z");
        List<LocomoData.Turn> turns = List.of(
                new LocomoData.Turn("D1:1", "Ann", "I adopted a puppy.", null, 1, 0, day, ""),
                new LocomoData.Turn("D1:2", "user", "我将要参加金融科技精英论坛。", null, 1, 1, day, ""),
                new LocomoData.Turn("D1:3", "Ann", "He loves squirrels.", null, 1, 2, day, ""));
        List<MemoryRecord> records =
                LocomoData.records("c", "c", turns, new LocomoEval.Options(false, false, 1, null, false));
        List<String> english = new ArrayList<>();
        List<String> chinese = new ArrayList<>();
        LocomoEval.Embedder en = new LocomoEval.Embedder("en", texts -> {
            english.addAll(texts);
            return texts.stream().map(t -> new float[] {1, 0}).toList();
        });
        LocomoEval.Embedder zh = new LocomoEval.Embedder("zh", texts -> {
            chinese.addAll(texts);
            return texts.stream().map(t -> new float[] {0, 1, 0}).toList();
        });
        List<MemoryRecord> embedded = LocomoEval.withVectors(records, text -> text.contains("论坛") ? zh : en);

        assertEquals(
                List.of("c/D1:1", "c/D1:2", "c/D1:3"),
                embedded.stream().map(MemoryRecord::id).toList());
        assertEquals(
                List.of("en", "zh", "en"),
                embedded.stream().map(MemoryRecord::vectorModel).toList());
        assertEquals(3, embedded.get(1).vector().length);
        assertEquals(3, embedded.get(1).contextVector().length, "the context by the model of the text");
        assertEquals(List.of(records.get(1).text(), records.get(1).contextText()), chinese);
        assertEquals(4, english.size(), "two texts, two texts with context");
    }

    @Test
    void recallAndPercentileArithmetic() {
        double[] r = EvidenceRecall.recallAtK(List.of("a", "x", "a", "y", "b"), Set.of("a", "b"));
        assertArrayEquals(new double[] {0.5, 1.0, 1.0, 1.0, 1.0}, r, 1e-9);
        assertArrayEquals(new double[] {0, 0, 0, 0, 0}, EvidenceRecall.recallAtK(List.of(), Set.of("a")), 1e-9);
        // Over min(k, evidence): rank 1 being evidence counts whole, however much evidence there is.
        assertArrayEquals(
                new double[] {1.0, 1.0, 1.0, 1.0, 1.0},
                EvidenceRecall.cappedRecallAtK(List.of("a", "x", "a", "y", "b"), Set.of("a", "b")),
                1e-9);
        assertArrayEquals(
                new double[] {0, 1 / 5.0, 1 / 6.0, 1 / 6.0, 1 / 6.0},
                EvidenceRecall.cappedRecallAtK(List.of("x", "a"), Set.of("a", "b", "c", "d", "e", "f")),
                1e-9);

        List<Long> values = new ArrayList<>();
        for (long i = 1; i <= 100; i++) {
            values.add(i);
        }
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        assertEquals(50, LocomoEval.percentile(sorted, 0.5));
        assertEquals(99, LocomoEval.percentile(sorted, 0.99));
        assertEquals(7, LocomoEval.percentile(new long[] {7}, 0.99));
        assertEquals(0, LocomoEval.percentile(new long[0], 0.5));
    }
}
