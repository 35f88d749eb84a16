package io.reme.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/** A Java properties file a process of the cluster reads, written in order and readable by its owner only (it holds passwords). */
final class PropertiesFile {
    private PropertiesFile() {}

    static Path write(Path file, String header, Map<String, String> props) {
        try {
            Files.createDirectories(file.getParent());
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                out.write("# " + header + "\n");
                for (Map.Entry<String, String> entry : props.entrySet()) {
                    out.write(entry.getKey() + "=" + entry.getValue().replace("\\", "\\\\") + "\n");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
        return file;
    }
}
