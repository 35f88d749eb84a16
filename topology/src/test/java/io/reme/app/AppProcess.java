package io.reme.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code reme-streams run} in a child JVM on this JVM's class path, as an operator would start it.
 * Its output is copied to a log file; the {@code READY <url>} line completes {@link #awaitReady}.
 * {@link #kill} is SIGKILL (no shutdown hook, no commit, no leaving the group); {@link #close} is
 * SIGTERM, then SIGKILL if the process is still there after 30 s.
 */
public final class AppProcess implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final CompletableFuture<String> ready = new CompletableFuture<>();

    private AppProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        Thread reader = new Thread(this::copyOutput, "app-process-output");
        reader.setDaemon(true);
        reader.start();
        // A child must not outlive the JVM that started it, however that JVM ends.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "app-process-stop"));
    }

    /**
     * Starts {@code run} with {@code arguments} after the verb; the child's {@code REME_*} environment
     * is cleared so only the arguments and the config file configure it.
     */
    public static AppProcess start(List<String> arguments, Path log) throws IOException {
        return start(arguments, Map.of(), log);
    }

    /** As {@link #start(List, Path)}, with {@code environment} (e.g. {@code REME_*} options) added. */
    public static AppProcess start(List<String> arguments, Map<String, String> environment, Path log)
            throws IOException {
        return start(List.of("-Xmx768m", "-XX:+UseSerialGC"), arguments, environment, log);
    }

    /** As {@link #start(List, Map, Path)}, the JVM run with {@code jvmOptions} (heap, collector). */
    public static AppProcess start(
            List<String> jvmOptions, List<String> arguments, Map<String, String> environment, Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of(
                // As the README starts the app: Lucene compares vectors with SIMD only with this module.
                "--add-modules",
                "jdk.incubator.vector",
                "-cp",
                System.getProperty("java.class.path"),
                "io.reme.cli.Main",
                "run"));
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("REME_"));
        builder.environment().putAll(environment);
        return new AppProcess(builder.start(), log);
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

    /** The API's URL once the child prints {@code READY}. */
    public String awaitReady(Duration timeout) throws InterruptedException {
        try {
            return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "not READY within " + timeout.toSeconds() + " s (" + e + "); last lines of " + log + ":\n"
                            + tail(40),
                    e);
        }
    }

    /** The child's process id (for its memory figures in {@code /proc}). */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Throws, with the child's last lines, if it has exited. */
    public void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the process exited with " + process.exitValue() + ":\n" + tail(40));
        }
    }

    /** SIGKILL, and wait for the process to be gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("a killed process did not exit");
        }
    }

    /** The last {@code lines} lines of the child's output. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    /**
     * SIGTERM (the shutdown hook runs), then SIGKILL if it is still running after 30 s; interrupted while
     * waiting, SIGKILL at once (the thread stays interrupted).
     */
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
