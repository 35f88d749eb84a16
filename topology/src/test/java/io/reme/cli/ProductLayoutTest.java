package io.reme.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The product carries no benchmark or evaluation code: those live in the {@code bench} module and its
 * own jar. This test sees the product's class path (processors, connectors, topology and their test
 * helpers), which is what {@code reme-streams.jar} is shaded from.
 */
class ProductLayoutTest {

    @Test
    void noBenchmarkOrEvaluationPackageOnTheProductClassPath() throws IOException {
        for (String pkg : List.of("io/reme/bench", "io/reme/eval")) {
            List<URL> found = Collections.list(getClass().getClassLoader().getResources(pkg));
            assertEquals(List.of(), found, pkg + " belongs to the bench module");
        }
    }

    @Test
    void noHarnessLeftInTheProductPackages() {
        for (String name : List.of(
                "io.reme.search.LocomoEval",
                "io.reme.embedding.EmbeddingThroughput",
                "io.reme.cli.BenchCommand",
                "io.reme.cli.EvalCommand")) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(name), name);
        }
    }

    @Test
    void theProductCommandLineHasNoBenchOrEvalVerb() {
        Set<String> verbs = new CommandLine(new Main()).getSubcommands().keySet();
        assertFalse(verbs.contains("bench"), verbs.toString());
        assertFalse(verbs.contains("eval"), verbs.toString());
    }
}
