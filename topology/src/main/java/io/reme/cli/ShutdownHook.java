package io.reme.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM shutdown hook of a long-running command: closes what the command started and releases
 * the command's main thread. A SIGTERM must end the process, so the hook also starts a watchdog: if
 * the JVM is still shutting down after {@link #GRACE} (our close or any library's hook stuck), it
 * logs that and halts. A daemon thread, so a shutdown that finishes in time never waits for it.
 */
final class ShutdownHook {
    /** Streams' close is bounded at 30 s and the file sinks' at 15 s; the rest takes seconds. */
    static final Duration GRACE = Duration.ofSeconds(60);
    /** The exit status of a halted shutdown: that of a process ended by SIGTERM. */
    static final int HALT_STATUS = 143;

    private static final Logger LOG = LoggerFactory.getLogger(ShutdownHook.class);

    private ShutdownHook() {}

    /** Registers the hook; {@code stopped} counts down once {@code close} has returned. */
    static Thread install(Runnable close, CountDownLatch stopped) {
        Thread hook = create(close, stopped, GRACE, () -> Runtime.getRuntime().halt(HALT_STATUS));
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    static Thread create(Runnable close, CountDownLatch stopped, Duration grace, Runnable halt) {
        return new Thread(
                () -> {
                    Thread watchdog = new Thread(
                            () -> {
                                try {
                                    Thread.sleep(grace.toMillis());
                                } catch (InterruptedException e) {
                                    return;
                                }
                                LOG.error("shutdown still running after graceMs={}; halting the JVM", grace.toMillis());
                                halt.run();
                            },
                            "reme-shutdown-watchdog");
                    watchdog.setDaemon(true);
                    watchdog.start();
                    try {
                        close.run();
                    } finally {
                        stopped.countDown();
                    }
                },
                "reme-shutdown");
    }
}
