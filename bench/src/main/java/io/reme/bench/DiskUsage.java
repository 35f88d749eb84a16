package io.reme.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** Bytes of the regular files under a directory, as the benchmarks report state and index sizes. */
final class DiskUsage {
    private DiskUsage() {}

    /** The bytes of the regular files under {@code root} that {@code counted} accepts (0 when it does not exist). */
    static long bytes(Path root, Predicate<Path> counted) {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(Files::isRegularFile)
                    .filter(counted)
                    .mapToLong(DiskUsage::size)
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long size(Path path) {
        try {
            return Files.size(path);
        } catch (IOException e) {
            // Deleted while walked (a segment merged away): it no longer counts.
            return 0;
        }
    }
}
