package io.reme.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The demo jar ({@code reme-streams.jar}: the application with its embedded broker) started as a separate process,
 * as a user would: {@code java -jar <jar> run --data-dir <dir> --http-port 0}. Its output goes to a log file; the
 * {@code READY <url>} line completes {@link #awaitReady}. {@link #close} stops it (SIGTERM, then SIGKILL).
 */
final class DemoProcess implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final CompletableFuture<String> ready = new CompletableFuture<>();

    private DemoProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        Thread reader = new Thread(this::copyOutput, "demo-process-output");
        reader.setDaemon(true);
        reader.start();
        // A child must not outlive the test JVM, however that JVM ends.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "demo-process-stop"));
    }

    /** The jar named by the {@code reme.jar} system property, or a failure that says how to get one. */
    static Path jar() {
        Path jar = Path.of(System.getProperty("reme.jar", "../../topology/target/reme-streams.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "the demo jar " + jar.toAbsolutePath().normalize() + " is missing: build"
                            + " it first (mvn -pl topology -am package -DskipTests) or name one with -Dreme.jar=<path>");
        }
        return jar;
    }

    static DemoProcess start(Path jar, Path dataDir, Path log) throws IOException {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules",
                "jdk.incubator.vector",
                "-jar",
                jar.toString(),
                "run",
                "--data-dir",
                dataDir.toString(),
                "--http-port",
                "0");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // Only the arguments configure it, not a REME_* variable of whoever runs the build.
        builder.environment().keySet().removeIf(name -> name.startsWith("REME_"));
        return new DemoProcess(builder.start(), log);
    }

    private void copyOutput() {
        try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                if (line.startsWith("READY ")) {
                    ready.complete(line.substring("READY ".length()).trim());
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        } finally {
            ready.completeExceptionally(new IllegalStateException("the process exited before READY"));
        }
    }

    /** The API's URL once the process prints {@code READY}. */
    String awaitReady(Duration timeout) throws InterruptedException {
        try {
            return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "not READY within " + timeout.toSeconds() + " s (" + e + "); last lines of " + log + ":\n" + tail(),
                    e);
        }
    }

    private String tail() {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
