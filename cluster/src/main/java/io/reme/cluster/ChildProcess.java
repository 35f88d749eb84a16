package io.reme.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One process of the cluster, known by the pid file it wrote under the cluster's directory, so that a
 * later command (another JVM) can find it, and stop only it: a pid is acted on only while its command
 * line still names that directory, never a process that reused the number.
 *
 * <p>A detached child is started through {@code setsid}: it has its own session, so neither the end of
 * the launcher nor a Ctrl-C in the launcher's terminal reaches it.
 */
public final class ChildProcess {
    private final String name;
    private final Path pidFile;
    private final Path log;
    private final String marker;

    /**
     * @param name what the logs call it ({@code node-1}, {@code connect}, {@code app-2})
     * @param pidFile where its pid is kept
     * @param log its standard output and error
     * @param marker text its command line always contains (the cluster directory)
     */
    public ChildProcess(String name, Path pidFile, Path log, String marker) {
        this.name = name;
        this.pidFile = pidFile;
        this.log = log;
        this.marker = marker;
    }

    public String name() {
        return name;
    }

    public Path log() {
        return log;
    }

    /**
     * Starts {@code command} with {@code environment} added (and no {@code REME_*} variable of this
     * process's), output appended to the log; refuses while the process this pid file names is still running.
     */
    public long start(List<String> command, Map<String, String> environment, boolean detached) {
        if (handle().isPresent()) {
            throw new IllegalStateException(name + " is already running (pid " + pidFile + ")");
        }
        List<String> full = new ArrayList<>();
        if (detached) {
            full.add("setsid");
        }
        full.addAll(command);
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(full)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(
                            ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            // The cluster sets every option of its processes itself: none comes from the launcher's shell.
            builder.environment().keySet().removeIf(variable -> variable.startsWith("REME_"));
            builder.environment().putAll(environment);
            Process process = builder.start();
            if (!detached) {
                // An attached child must not outlive the JVM that started it, however that JVM ends.
                Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, name + "-stop"));
            }
            Files.writeString(pidFile, Long.toString(process.pid()), StandardCharsets.UTF_8);
            return process.pid();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name, e);
        }
    }

    /** The running process this pid file names, if it is still ours. */
    public Optional<ProcessHandle> handle() {
        if (!Files.isRegularFile(pidFile)) {
            return Optional.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(
                    Files.readString(pidFile, StandardCharsets.UTF_8).trim());
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(this::isOurs);
    }

    public boolean isAlive() {
        return handle().isPresent();
    }

    /** SIGKILL: no shutdown hook, no flush, no clean leave. Waits until the process is gone. */
    public void kill() {
        handle().ifPresent(process -> {
            process.destroyForcibly();
            await(process, Duration.ofSeconds(30));
        });
    }

    /** SIGTERM, then SIGKILL if the process still runs after {@code grace}. */
    public void stop(Duration grace) {
        handle().ifPresent(process -> {
            process.destroy();
            if (!await(process, grace)) {
                process.destroyForcibly();
                await(process, Duration.ofSeconds(30));
            }
        });
    }

    /** The log's last {@code lines} lines, for an error message. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private boolean isOurs(ProcessHandle process) {
        // /proc holds the whole command line; ProcessHandle.Info may cut it short.
        Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try {
            return new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8)
                    .replace('\0', ' ')
                    .contains(marker);
        } catch (IOException e) {
            return process.info()
                    .commandLine()
                    .map(line -> line.contains(marker))
                    .orElse(false);
        }
    }

    private static boolean await(ProcessHandle process, Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }
}
