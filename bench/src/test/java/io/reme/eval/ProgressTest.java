package io.reme.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
    @Test
    void theTimeLeftIsTheTimeSoFarScaledToTheTurnsLeft() {
        AtomicLong now = new AtomicLong(0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress progress = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2, 1_000, now::get);
        assertEquals("estimating time left", progress.left(0));

        progress.indexing(1, "c1", 250);
        now.set(Duration.ofMinutes(1).toNanos());
        // Half of the first conversation's questions: 125 of 1,000 turns in one minute.
        progress.asked(1, "c1", 250, 10, 20);
        assertTrue(bytes.toString(StandardCharsets.UTF_8)
                .endsWith("[1/2] c1: 10/20 questions, about 7 min left          "));
        progress.finished(250);
        now.set(Duration.ofMinutes(2).toNanos());
        assertEquals("about 6 min left", progress.left(250));
        progress.done();
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("done: 2 conversations in 2 min"));
        assertEquals("2.0 h", Progress.format(Duration.ofHours(2)));
    }
}
