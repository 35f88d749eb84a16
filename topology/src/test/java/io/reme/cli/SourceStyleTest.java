package io.reme.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A JDK type is imported, not written out in full inside the code (comments and strings aside), in
 * every module's main and test sources.
 */
class SourceStyleTest {
    private static final List<String> MODULES = List.of("processors", "connectors", "topology", "bench");
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])javax?(?:\\.[a-z][a-z0-9]*)+\\.[A-Z]\\w*");

    @Test
    void noInlineFullyQualifiedJdkNames() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : MODULES) {
            Path src = Path.of("..", module, "src");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String[] lines = code(Files.readString(file)).split("\n", -1);
                    for (int i = 0; i < lines.length; i++) {
                        String line = lines[i].strip();
                        if (line.startsWith("import ") || line.startsWith("package ")) {
                            continue;
                        }
                        Matcher m = QUALIFIED.matcher(line);
                        while (m.find()) {
                            found.add(file + ":" + (i + 1) + " " + m.group());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found, "import these instead");
    }

    /** The source with comments and string and character literals blanked, line breaks kept. */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                while (i < source.length() && source.charAt(i) != '\n') {
                    i++;
                }
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? source.length() : end + 2;
                source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? source.length() : end + 3;
                source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end;
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < source.length() && source.charAt(i) != c && source.charAt(i) != '\n') {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
