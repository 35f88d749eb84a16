package io.reme.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.llm.RequestSecret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestSecretsTest {
    @TempDir
    Path dataDir;

    private AppConfig config(Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(extra);
        options.put(AppConfig.DATA_DIR.name(), dataDir.toString());
        return AppConfig.of(options);
    }

    @Test
    void theEmbeddedDefaultGeneratesOnePrivateSecretAndKeepsIt() throws Exception {
        RequestSecret first = RequestSecrets.resolve(config(Map.of()));
        Path file = dataDir.resolve(RequestSecrets.FILE);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String kept = Files.readString(file, StandardCharsets.UTF_8).trim();
        assertEquals(64, kept.length());
        RequestSecret again = RequestSecrets.resolve(config(Map.of()));
        assertEquals(first.requestId("acme/s1#1"), again.requestId("acme/s1#1"), "a restart issues the same ids");
    }

    @Test
    void aClusterDeploymentMustConfigureIt() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> RequestSecrets.resolve(config(Map.of(AppConfig.BOOTSTRAP_SERVERS.name(), "kafka:9092"))));
        assertTrue(
                e.getMessage()
                        .contains(
                                "reme.request.secret (REME_REQUEST_SECRET): required with " + "reme.bootstrap.servers"),
                e.getMessage());
        assertFalse(Files.exists(dataDir.resolve(RequestSecrets.FILE)), "nothing generated for a cluster");
    }

    @Test
    void aConfiguredSecretIsUsedAndAShortOneIsRefusedWithoutEchoingIt() throws Exception {
        String configured = "configured-secret-0123456789abcdef";
        RequestSecret secret = RequestSecrets.resolve(config(
                Map.of(AppConfig.BOOTSTRAP_SERVERS.name(), "kafka:9092", AppConfig.REQUEST_SECRET.name(), configured)));
        assertEquals(RequestSecret.of(configured).requestId("acme/s1#1"), secret.requestId("acme/s1#1"));
        ConfigException e = assertThrows(
                ConfigException.class, () -> config(Map.of(AppConfig.REQUEST_SECRET.name(), "hunter2hunter2")));
        assertTrue(e.getMessage().contains("reme.request.secret"), e.getMessage());
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    }
}
