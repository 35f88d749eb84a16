package io.reme.eval;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress line of a long evaluation, with an estimate of the time left. A conversation's cost grows with its
 * turns (each is embedded and indexed, and its questions search an index of that size), so the work done is
 * counted in turns: those of the conversations finished, plus the share of the current one's questions asked.
 * The estimate is the time so far scaled to the turns left. Printed on one line, rewritten in place.
 */
final class Progress {
    private final PrintStream out;
    private final int conversations;
    private final long totalTurns;
    private final LongSupplier clock;
    private final long start;
    private long turnsDone;

    Progress(PrintStream out, int conversations, long totalTurns, LongSupplier nanoClock) {
        this.out = out;
        this.conversations = conversations;
        this.totalTurns = totalTurns;
        this.clock = nanoClock;
        this.start = nanoClock.getAsLong();
    }

    /** Conversation {@code number} (from 1), of {@code turns} turns, is being indexed. */
    void indexing(int number, String sample, int turns) {
        print(number, sample, "indexing " + turns + " turns", turnsDone);
    }

    /** {@code asked} of the current conversation's {@code questions} questions are answered. */
    void asked(int number, String sample, int turns, int asked, int questions) {
        long now = turnsDone + (questions == 0 ? 0 : (long) turns * asked / questions);
        print(number, sample, asked + "/" + questions + " questions", now);
    }

    /** The current conversation, of {@code turns} turns, is done. */
    void finished(int turns) {
        turnsDone += turns;
    }

    /** Ends the line. */
    void done() {
        out.printf(
                Locale.ROOT,
                "\rdone: %d conversations in %s%30s%n",
                conversations,
                format(Duration.ofNanos(clock.getAsLong() - start)),
                "");
    }

    private void print(int number, String sample, String what, long turnsNow) {
        out.printf(Locale.ROOT, "\r[%d/%d] %s: %s, %s          ", number, conversations, sample, what, left(turnsNow));
    }

    /** "about 3 min left", or "estimating" before any turn is done. */
    String left(long turnsNow) {
        if (turnsNow <= 0 || totalTurns <= 0) {
            return "estimating time left";
        }
        long elapsed = clock.getAsLong() - start;
        double share = Math.min(1.0, turnsNow / (double) totalTurns);
        long leftNanos = (long) (elapsed * (1 - share) / share);
        return "about " + format(Duration.ofNanos(leftNanos)) + " left";
    }

    static String format(Duration d) {
        long seconds = d.toSeconds();
        if (seconds < 90) {
            return seconds + " s";
        }
        if (seconds < 90 * 60) {
            return Math.round(seconds / 60.0) + " min";
        }
        return String.format(Locale.ROOT, "%.1f h", seconds / 3600.0);
    }
}
