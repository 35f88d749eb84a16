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
        List<LocomoEval.Turn> turns = LocomoEval.turns(conv);
        assertEquals(
                List.of("D1:1", "D1:2", "D1:3", "D2:1", "D2:2"),
                turns.stream().map(LocomoEval.Turn::diaId).toList());
        assertEquals(Instant.parse("2023-05-08T13:56:00Z"), turns.get(0).sessionTime());

        List<MemoryRecord> plain =
                LocomoEval.records("conv-x", "conv-x", turns, new LocomoEval.Options(false, false, 0, null, false));
        assertEquals("Ann: Here is my garden.", plain.get(4).text());
        assertEquals("D2:2", plain.get(4).metadata().get("dia_id"));
        assertEquals("session_2", plain.get(4).session());

        List<MemoryRecord> rich =
                LocomoEval.records("conv-x", "conv-x", turns, new LocomoEval.Options(true, true, 1, null, false));
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
        List<LocomoEval.Turn> turns = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Long technical turns, as on BEAM: each alone is half the bound, and one ends in an emoji.
            turns.add(new LocomoEval.Turn(
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
                LocomoEval.records("beam-1", "beam-1", turns, new LocomoEval.Options(false, false, 2, null, false));
        assertEquals(5, records.size());
        for (MemoryRecord r : records) {
            assertTrue(r.context().length() <= MemoryRecord.MAX_CONTEXT_LENGTH, r.id());
            assertFalse(Character.isHighSurrogate(r.context().charAt(r.context().length() - 1)), r.id());
        }
        assertEquals(MemoryRecord.MAX_CONTEXT_LENGTH, records.get(2).context().length(), "four neighbours, clipped");
    }

    @Test
    void recallAndPercentileArithmetic() {
        double[] r = LocomoEval.recallAtK(List.of("a", "x", "a", "y", "b"), Set.of("a", "b"));
        assertArrayEquals(new double[] {0.5, 1.0, 1.0, 1.0, 1.0}, r, 1e-9);
        assertArrayEquals(new double[] {0, 0, 0, 0, 0}, LocomoEval.recallAtK(List.of(), Set.of("a")), 1e-9);

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
