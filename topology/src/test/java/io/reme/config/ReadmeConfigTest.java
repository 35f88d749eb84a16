package io.reme.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every option is documented in the README's configuration table, with its variable and default. */
class ReadmeConfigTest {
    @Test
    void theReadmeDocumentsEveryOption() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        for (ConfigField<?> field : AppConfig.FIELDS) {
            String row = "| `" + field.name() + "` | `" + field.envName() + "` | `"
                    + (field.defaultValue().isEmpty() ? "(empty)" : field.defaultValue()) + "` |";
            assertTrue(readme.contains(row), "README lacks the row for " + field.name() + ": " + row);
        }
    }

    /** {@code demo} and {@code run} started in the repository root leave their data where git ignores it. */
    @Test
    void theDefaultDataDirectoryIsIgnoredInTheRepositoryRoot() throws IOException {
        String dir = Path.of(AppConfig.DATA_DIR.defaultValue()).normalize().toString();
        assertTrue(
                Files.readAllLines(Path.of("..", ".gitignore")).contains("/" + dir + "/"),
                ".gitignore lacks /" + dir + "/");
        assertTrue(
                Files.readString(Path.of("..", "README.md")).contains("`<data-dir>` is `./" + dir + "`"),
                "the README names the default data directory");
    }
}
