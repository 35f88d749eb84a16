package io.reme.cluster;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a process of the cluster is started: this JVM's {@code java}, Kafka's official artifacts as Maven
 * resolved them at build time (the class path in the {@code server.classpath} resource), and one
 * logback configuration under the cluster's directory.
 */
final class Launcher {
    private static final String CLASSPATH_RESOURCE = "server.classpath";

    private final Path java;
    private final String classPath;
    private final Path logConfig;

    private Launcher(Path java, String classPath, Path logConfig) {
        this.java = java;
        this.classPath = classPath;
        this.logConfig = logConfig;
    }

    /** Reads the build's class path, checks every jar on it is there, and writes the log configuration. */
    static Launcher forCluster(Path dir) {
        String classPath = serverClassPath();
        for (String jar : classPath.split(File.pathSeparator)) {
            if (!Files.isRegularFile(Path.of(jar))) {
                throw new IllegalStateException("a Kafka jar the build resolved is missing: " + jar
                        + " (run the Maven build on this machine first)");
            }
        }
        Path logConfig = dir.resolve("logback.xml");
        try {
            Files.createDirectories(dir);
            Files.writeString(logConfig, LOG_CONFIG, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + logConfig, e);
        }
        return new Launcher(Path.of(System.getProperty("java.home"), "bin", "java"), classPath, logConfig);
    }

    static String serverClassPath() {
        try (InputStream in = Launcher.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        "no " + CLASSPATH_RESOURCE + " resource: the cluster module was not built");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path java() {
        return java;
    }

    /** {@code java <heap> -cp <Kafka's jars> <main> <arguments>}. */
    List<String> javaCommand(String heap, String mainClass, String... arguments) {
        List<String> command = new ArrayList<>(List.of(
                java.toString(),
                heap,
                "-XX:+UseG1GC",
                "-Djava.awt.headless=true",
                "-Dlogback.configurationFile=" + logConfig,
                "-cp",
                classPath,
                mainClass));
        command.addAll(List.of(arguments));
        return command;
    }

    // Kafka's own log4j2 configuration logs its INFO lines; so does this one, to the process's output.
    private static final String LOG_CONFIG = """
            <configuration>
              <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
              </appender>
              <logger name="kafka" level="INFO"/>
              <logger name="org.apache.kafka" level="INFO"/>
              <logger name="org.apache.kafka.clients" level="WARN"/>
              <logger name="org.apache.kafka.common.network" level="WARN"/>
              <logger name="org.apache.kafka.common.security" level="WARN"/>
              <logger name="kafka.authorizer.logger" level="WARN"/>
              <logger name="kafka.request.logger" level="WARN"/>
              <logger name="org.eclipse.jetty" level="WARN"/>
              <logger name="org.reflections" level="ERROR"/>
              <root level="WARN"><appender-ref ref="OUT"/></root>
            </configuration>
            """;
}
