package io.reme.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application jar a cluster deployment runs (ClusterIT runs it under every fault): built without the embedded
 * default, so without Kafka's server, raft and Connect runtime, and clear about it when asked for the embedded
 * default anyway.
 */
@Tag("integration")
class ApplicationJarIT {
    private static final Path APP_JAR =
            Path.of(System.getProperty("reme.app.jar", "../application/target/reme-streams-app.jar"));
    private static final Path DEMO_JAR = APP_JAR.resolveSibling("../../topology/target/reme-streams.jar");

    /** Class folders only the embedded default needs: the broker, its raft and storage, Connect's runtime, Scala. */
    private static final List<String> EMBEDDED_ONLY = List.of(
            "io/reme/embedded/",
            "kafka/server/",
            "org/apache/kafka/raft/",
            "org/apache/kafka/storage/",
            "org/apache/kafka/connect/runtime/",
            "scala/");

    @Test
    void holdsNothingOfTheEmbeddedDefaultButTheConnectorsAConnectClusterLoads() throws IOException {
        List<String> names = entries(APP_JAR);
        for (String folder : EMBEDDED_ONLY) {
            assertTrue(names.stream().noneMatch(n -> n.startsWith(folder)), APP_JAR + " holds " + folder);
        }
        // A Connect cluster's workers load the file sinks from this jar (its plugin path).
        assertTrue(names.contains("io/reme/sink/DialogSinkConnector.class"));
        assertTrue(names.contains("META-INF/services/org.apache.kafka.connect.sink.SinkConnector"));
        assertTrue(names.stream().noneMatch(n -> n.contains(".dSYM/")), "no debug symbols");

        List<String> demo = entries(DEMO_JAR.normalize());
        assertTrue(demo.contains("io/reme/embedded/EmbeddedRuntime.class"), "the demo jar keeps the embedded default");
        assertTrue(demo.contains("META-INF/services/io.reme.local.LocalRuntime"));
        System.out.printf(
                "application jar %d bytes, demo jar %d bytes%n", Files.size(APP_JAR), Files.size(DEMO_JAR.normalize()));
    }

    @Test
    void askedForTheEmbeddedDefaultItSaysWhichSettingIsMissing(@TempDir Path dir) throws Exception {
        Process demo = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        APP_JAR.toString(),
                        "demo",
                        "--exit",
                        "--data-dir",
                        dir.toString(),
                        "--http-port",
                        "0")
                .redirectErrorStream(true)
                .start();
        String output = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(demo.waitFor(60, TimeUnit.SECONDS));
        assertNotEquals(0, demo.exitValue(), output);
        assertTrue(
                output.contains("reme.bootstrap.servers: required, this jar has no embedded broker"
                        + " (the embedded default is in reme-streams.jar)"),
                output);
        assertEquals(-1, output.indexOf("READY"), output);
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(ZipEntry::getName).toList();
        }
    }
}
