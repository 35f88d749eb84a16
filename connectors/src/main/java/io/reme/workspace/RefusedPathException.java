package io.reme.workspace;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file operation in the working directory refused because the path passes through something
 * other than plain folders and files (a symbolic link, a device, a pipe): following it could read
 * or write outside the working directory. Not retried: the same path would be refused again until
 * a person removes what was planted there.
 */
public final class RefusedPathException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient Path path;

    RefusedPathException(Path path, Path part, String why) {
        super("refused " + path + ": " + (part.equals(path) ? "it" : part.toString()) + " " + why);
        this.path = path;
    }

    /** The path the operation was asked for. */
    public Path path() {
        return path;
    }
}
