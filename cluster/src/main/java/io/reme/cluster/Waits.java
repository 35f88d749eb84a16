package io.reme.cluster;

import java.time.Duration;

/** The one way the launcher waits: poll a check until it holds, failing at once if the process it waits for died. */
final class Waits {
    private static final Duration POLL = Duration.ofMillis(500);

    /** A check that may throw; a throw counts as "not yet". */
    @FunctionalInterface
    interface Check {
        boolean holds() throws Exception;
    }

    private Waits() {}

    /**
     * Polls {@code check} until it holds or {@code deadline} ({@link System#nanoTime()}) passes.
     *
     * @param watched the processes whose death makes waiting pointless; the last lines of one that died go
     *     into the error
     */
    static void until(String what, long deadline, Check check, ChildProcess... watched) {
        Exception last = null;
        while (true) {
            try {
                if (check.holds()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            for (ChildProcess process : watched) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("waiting for " + what + ": " + process.name()
                            + " exited; last lines of " + process.log() + ":\n" + process.tail(30));
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "timed out waiting for " + what + (last == null ? "" : " (last: " + last + ")"));
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
