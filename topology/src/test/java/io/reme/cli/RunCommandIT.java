package io.reme.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} in a child JVM, ended with SIGTERM ({@link Process#destroy}) as a service manager or
 * Ctrl-C would: the process must exit, every time, within a bound. Three runs on one data directory
 * (the hang it guards against was seen once in four). Afterwards the data directory's folders are
 * private to their owner.
 */
@Tag("integration")
class RunCommandIT {
    private static final long EXIT_WITHIN_SECONDS = 45;

    @TempDir
    Path dir;

    @Test
    void sigtermEndsTheProcess() throws Exception {
        for (int run = 1; run <= 3; run++) {
            Path log = dir.resolve("run-" + run + ".log");
            ProcessBuilder builder = new ProcessBuilder(List.of(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xmx768m",
                            "--add-modules",
                            "jdk.incubator.vector",
                            "-cp",
                            System.getProperty("java.class.path"),
                            Main.class.getName(),
                            "run",
                            "--data-dir",
                            dir.resolve("data").toString(),
                            "--http-port",
                            "0"))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().put("REME_EMBEDDING_PROVIDER", "none");
            Process process = builder.start();
            try {
                awaitReady(process, log);
                long signalled = System.nanoTime();
                process.destroy();
                boolean exited = process.waitFor(EXIT_WITHIN_SECONDS, TimeUnit.SECONDS);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
                String output = Files.readString(log, StandardCharsets.UTF_8);
                assertTrue(exited, "run " + run + " still up " + EXIT_WITHIN_SECONDS + " s after SIGTERM:\n" + output);
                assertTrue(
                        output.contains("RemeApp - stopped"),
                        "run " + run + " closed in order (exit status " + process.exitValue() + " after " + millis
                                + " ms):\n" + output);
                assertFalse(output.contains("halting the JVM"), "run " + run + " needed the watchdog");
                System.out.println(
                        "run " + run + " exit status " + process.exitValue() + " after SIGTERM in " + millis + " ms");
            } finally {
                process.destroyForcibly();
            }
        }
        Path data = dir.resolve("data");
        if (Files.getFileStore(data).supportsFileAttributeView("posix")) {
            // The data directory holds every tenant's messages: only its owner may enter its folders.
            for (Path folder :
                    List.of(data, data.resolve("kafka"), data.resolve("kafka/logs"), data.resolve("connect"))) {
                assertEquals(
                        "rwx------",
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)),
                        folder.toString());
            }
            assertEquals(
                    "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("api-key"))));
        }
    }

    private static void awaitReady(Process process, Path log) {
        await("READY in the child's log")
                .atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(200))
                .failFast("the child ended before READY", () -> !process.isAlive())
                .untilAsserted(() -> assertTrue(
                        Files.readString(log, StandardCharsets.UTF_8).contains("\nREADY "), Files.readString(log)));
    }
}
