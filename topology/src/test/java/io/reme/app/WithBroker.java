package io.reme.app;

import io.reme.embedded.EmbeddedKafka;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The in-JVM broker shared by the tests of one class: started once before them, closed after. */
abstract class WithBroker {
    @TempDir
    static Path dir;

    static EmbeddedKafka broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafka.start(dir.resolve("broker"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
