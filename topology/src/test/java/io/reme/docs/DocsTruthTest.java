package io.reme.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the documents say about the source tree, checked against it: the architecture document's module
 * table names every package of main code exactly once, under the module that holds it, and nothing
 * else; every document a Markdown file links to or names by path exists. Both drifted silently before.
 */
class DocsTruthTest {
    /** Tests run in their module's folder; the repository is its parent (as {@code ReadmeConfigTest} reads it). */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern PACKAGE = Pattern.compile("`(io\\.reme(?:\\.[a-z][a-z0-9]*)+)`");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(?:#[^)]*)?\\)");
    private static final Pattern MD_PATH = Pattern.compile("`((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\\.md)`");
    /** Files the product writes into a workspace, named by the documents but not part of the repository. */
    private static final Pattern WORKSPACE_FILE = Pattern.compile("MEMORY\\.md|memory/[0-9-]+\\.md");

    @Test
    void moduleTableNamesEveryPackageOnceUnderItsModule() throws IOException {
        Path root = ROOT;
        Map<String, String> documented = new TreeMap<>();
        List<String> twice = new ArrayList<>();
        String module = null;
        for (String line : Files.readAllLines(root.resolve("docs/architecture.md"), StandardCharsets.UTF_8)) {
            String[] cells = line.split("\\|", -1);
            if (!line.startsWith("| ") || cells.length < 4 || line.startsWith("|---")) {
                continue;
            }
            String first = cells[1].trim();
            if (!first.isEmpty()) {
                module = first;
            }
            Matcher m = PACKAGE.matcher(cells[2]);
            while (m.find()) {
                if (documented.put(m.group(1), module) != null) {
                    twice.add(m.group(1));
                }
            }
        }
        assertTrue(twice.isEmpty(), "packages named twice in the module table: " + twice);
        Map<String, String> actual = mainPackages(root);
        assertEquals(
                actual, documented, "docs/architecture.md module table (package -> module) against the source tree");
    }

    @Test
    void everyDocumentReferencedExists() throws IOException {
        Path root = ROOT;
        TreeSet<String> missing = new TreeSet<>();
        for (Path doc : markdownFiles(root)) {
            String text = Files.readString(doc, StandardCharsets.UTF_8);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (!target.contains(":") && !Files.exists(doc.getParent().resolve(target))) {
                    missing.add(root.relativize(doc) + " -> " + target);
                }
            }
            Matcher path = MD_PATH.matcher(text);
            while (path.find()) {
                String target = path.group(1);
                if (WORKSPACE_FILE.matcher(target).matches()) {
                    continue;
                }
                // A path in backquotes may be written from the repository root or from the document's folder.
                if (!Files.exists(root.resolve(target))
                        && !Files.exists(doc.getParent().resolve(target))) {
                    missing.add(root.relativize(doc) + " -> " + target);
                }
            }
        }
        assertTrue(missing.isEmpty(), "documents referenced but absent: " + missing);
    }

    /**
     * Package -> module of every main source package that holds a Java class; a module is a folder of the root, or
     * of a folder of the root ({@code clients/java}), named by its path.
     */
    private static Map<String, String> mainPackages(Path root) throws IOException {
        Map<String, String> packages = new TreeMap<>();
        try (Stream<Path> modules = Files.walk(root, 2)) {
            for (Path module : modules.filter(m -> !m.equals(root))
                    .filter(m -> !root.relativize(m).toString().startsWith("."))
                    .filter(m -> Files.isDirectory(m.resolve("src/main/java")))
                    .toList()) {
                Path sources = module.resolve("src/main/java");
                try (Stream<Path> files = Files.walk(sources)) {
                    files.filter(f -> f.toString().endsWith(".java"))
                            .filter(f -> !f.getFileName().toString().equals("package-info.java"))
                            .map(f ->
                                    sources.relativize(f.getParent()).toString().replace('/', '.'))
                            .forEach(
                                    p -> packages.put(p, root.relativize(module).toString()));
                }
            }
        }
        return packages;
    }

    private static List<Path> markdownFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".md"))
                    .filter(f -> {
                        String rel = root.relativize(f).toString();
                        return !rel.contains("target/") && !rel.contains("node_modules/") && !rel.startsWith(".");
                    })
                    .toList();
        }
    }
}
